//! Preset settings: `--set NAME=VALUE` checked against the parameters a preset declares, with
//! the framework's own parameter names and defaults.
//!
//! Owns: parsing values (`true`/`false`, `null`, integers, floats, strings), rejecting unknown
//! names, ill-typed values and numbers out of range (negative, or over 10^12), and typed access
//! for presets.

use std::collections::BTreeMap;
use std::fmt;

/// What kind of value a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Bool,
    Str,
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
}

/// A parameter a preset accepts: the framework's constructor name, its default, what it does.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: Kind,
    /// Default as the framework writes it (`null` for None); parsed like a `--set` value.
    pub default: &'static str,
    pub nullable: bool,
    pub help: &'static str,
}

/// A setting's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => f.write_str(s),
        }
    }
}

impl Value {
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => (*i).into(),
            Value::Float(x) => {
                serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, Into::into)
            }
            Value::Str(s) => s.clone().into(),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SettingError {
    #[error("`{0}` is not NAME=VALUE")]
    Syntax(String),
    #[error("preset `{preset}` has no setting `{name}`; it takes: {known}")]
    Unknown {
        preset: String,
        name: String,
        known: String,
    },
    #[error("setting `{name}`: `{value}` is not {expected}")]
    Type {
        name: String,
        value: String,
        expected: String,
    },
}

/// The resolved settings of one plan: every declared parameter, defaults filled in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    values: BTreeMap<&'static str, Value>,
    order: Vec<&'static str>,
    /// Names the user set explicitly.
    pub explicit: Vec<&'static str>,
}

impl Settings {
    /// Resolves `assignments` (`NAME=VALUE`) against `specs`.
    pub fn resolve(
        preset: &str,
        specs: &[ParamSpec],
        assignments: &[String],
    ) -> Result<Settings, SettingError> {
        let mut settings = Settings::default();
        for spec in specs {
            let value = parse_value(spec, spec.default).unwrap_or(Value::Null);
            settings.values.insert(spec.name, value);
            settings.order.push(spec.name);
        }
        for a in assignments {
            let (name, raw) = a
                .split_once('=')
                .ok_or_else(|| SettingError::Syntax(a.clone()))?;
            let name = name.trim();
            let spec =
                specs
                    .iter()
                    .find(|s| s.name == name)
                    .ok_or_else(|| SettingError::Unknown {
                        preset: preset.to_string(),
                        name: name.to_string(),
                        known: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                    })?;
            let value = parse_value(spec, raw.trim())?;
            settings.values.insert(spec.name, value);
            if !settings.explicit.contains(&spec.name) {
                settings.explicit.push(spec.name);
            }
        }
        Ok(settings)
    }

    pub fn get(&self, name: &str) -> &Value {
        self.values.get(name).unwrap_or(&Value::Null)
    }

    pub fn is_set(&self, name: &str) -> bool {
        self.explicit.contains(&name)
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Value::Int(i) => Some(*i),
            Value::Float(x) => Some(*x as i64),
            _ => None,
        }
    }

    pub fn float(&self, name: &str) -> Option<f64> {
        match self.get(name) {
            Value::Int(i) => Some(*i as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The context window these settings configure, and the setting's name, when they do
    /// (`context_window`, `max_context_window_tokens`, `config_context_length`): a framework
    /// configured for a smaller window than the model's.
    pub fn window(&self) -> Option<(u64, &'static str)> {
        [
            "context_window",
            "max_context_window_tokens",
            "config_context_length",
        ]
        .into_iter()
        .find_map(|name| {
            let w = self.int(name).filter(|w| *w > 0)?;
            Some((w as u64, name))
        })
    }

    /// All settings in declaration order, as JSON values.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for name in &self.order {
            map.insert((*name).to_string(), self.get(name).to_json());
        }
        serde_json::Value::Object(map)
    }

    /// `name=value` pairs in declaration order.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        self.order
            .iter()
            .map(|n| (*n, self.get(n).to_string()))
            .collect()
    }
}

/// The largest number a setting takes (10^12, beyond any context window): every setting is a
/// count, a size or a share, none negative, so arithmetic on them cannot overflow.
pub const MAX_SETTING: i64 = 1_000_000_000_000;

fn parse_value(spec: &ParamSpec, raw: &str) -> Result<Value, SettingError> {
    let bad = |expected: String| SettingError::Type {
        name: spec.name.to_string(),
        value: raw.to_string(),
        expected,
    };
    if raw == "null" || raw == "None" {
        return if spec.nullable {
            Ok(Value::Null)
        } else {
            Err(bad("allowed to be null".into()))
        };
    }
    match spec.kind {
        Kind::Int => raw
            .replace('_', "")
            .parse::<i64>()
            .ok()
            .filter(|i| (0..=MAX_SETTING).contains(i))
            .map(Value::Int)
            .ok_or_else(|| bad(format!("an integer from 0 to {MAX_SETTING}"))),
        Kind::Float => raw
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && (0.0..=MAX_SETTING as f64).contains(x))
            .map(Value::Float)
            .ok_or_else(|| bad(format!("a number from 0 to {MAX_SETTING}"))),
        Kind::Bool => match raw {
            "true" | "True" => Ok(Value::Bool(true)),
            "false" | "False" => Ok(Value::Bool(false)),
            _ => Err(bad("true or false".into())),
        },
        Kind::Str => Ok(Value::Str(raw.to_string())),
        Kind::Choice(options) => options
            .iter()
            .find(|o| **o == raw)
            .map(|o| Value::Str((*o).to_string()))
            .ok_or_else(|| bad(format!("one of {}", options.join(", ")))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec {
            name: "max_size",
            kind: Kind::Int,
            default: "240",
            nullable: false,
            help: "",
        },
        ParamSpec {
            name: "max_tokens",
            kind: Kind::Int,
            default: "null",
            nullable: true,
            help: "",
        },
        ParamSpec {
            name: "ratio",
            kind: Kind::Float,
            default: "0.8",
            nullable: false,
            help: "",
        },
        ParamSpec {
            name: "guard",
            kind: Kind::Choice(&["none", "shrink"]),
            default: "none",
            nullable: false,
            help: "",
        },
    ];

    #[test]
    fn defaults_fill_in_and_sets_override() {
        let s = Settings::resolve("p", SPECS, &["max_size=20".into(), "ratio=0.5".into()]).unwrap();
        assert_eq!(s.int("max_size"), Some(20));
        assert_eq!(s.get("max_tokens"), &Value::Null);
        assert_eq!(s.float("ratio"), Some(0.5));
        assert_eq!(s.str("guard"), Some("none"));
        assert!(s.is_set("max_size") && !s.is_set("guard"));
        assert_eq!(s.to_json()["max_tokens"], serde_json::Value::Null);
    }

    #[test]
    fn unknown_names_and_bad_values_are_rejected() {
        let err = Settings::resolve("p", SPECS, &["keep=3".into()]).unwrap_err();
        assert!(
            err.to_string()
                .contains("max_size, max_tokens, ratio, guard"),
            "{err}"
        );
        assert!(Settings::resolve("p", SPECS, &["max_size=big".into()]).is_err());
        assert!(Settings::resolve("p", SPECS, &["max_size=null".into()]).is_err());
        assert!(Settings::resolve("p", SPECS, &["guard=maybe".into()]).is_err());
        assert!(Settings::resolve("p", SPECS, &["oops".into()]).is_err());
        assert!(Settings::resolve("p", SPECS, &["max_tokens=null".into()]).is_ok());
    }

    #[test]
    fn numbers_out_of_range_are_rejected_not_wrapped() {
        for bad in [
            "max_size=-1",
            "max_size=9223372036854775807",
            "max_size=1_000_000_000_001",
            "ratio=-0.5",
            "ratio=1e300",
        ] {
            let err = Settings::resolve("p", SPECS, &[bad.into()]).unwrap_err();
            assert!(
                err.to_string().contains("from 0 to 1000000000000"),
                "{bad}: {err}"
            );
        }
        let s = Settings::resolve("p", SPECS, &["max_size=1_000_000_000_000".into()]).unwrap();
        assert_eq!(s.int("max_size"), Some(MAX_SETTING));
    }
}
