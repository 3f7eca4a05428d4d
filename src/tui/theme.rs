//! Themes: semantic roles (a role colour, a fate shade, a gauge), never raw colours in views.
//!
//! Owns: the bundled themes in `themes/` (dark, light, high-contrast), embedded in the binary,
//! and reading a user's theme file over the default.

use std::collections::BTreeMap;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

const BUNDLED: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

#[derive(Debug, Clone)]
pub struct Theme {
    colors: BTreeMap<String, Color>,
}

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme `{0}`; bundled themes: dark, light, high-contrast")]
    Unknown(String),
    #[error("{source_name}: {message}")]
    Invalid {
        source_name: String,
        message: String,
    },
}

impl Theme {
    pub fn bundled(name: &str) -> Result<Theme, ThemeError> {
        let text = BUNDLED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| ThemeError::Unknown(name.to_string()))?;
        Theme::parse(text, name, None)
    }

    /// The default theme, which every bundled theme test guarantees parses.
    pub fn dark() -> Theme {
        Theme::bundled("dark").unwrap_or(Theme {
            colors: BTreeMap::new(),
        })
    }

    /// Parses a theme file; roles it does not name come from `base`.
    pub fn parse(text: &str, source_name: &str, base: Option<&Theme>) -> Result<Theme, ThemeError> {
        let invalid = |message: String| ThemeError::Invalid {
            source_name: source_name.to_string(),
            message,
        };
        let table: BTreeMap<String, String> =
            toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let mut colors = base.map(|b| b.colors.clone()).unwrap_or_default();
        for (role, value) in table {
            let color = Color::from_str(&value)
                .map_err(|_| invalid(format!("`{role}`: `{value}` is not a colour")))?;
            colors.insert(role, color);
        }
        Ok(Theme { colors })
    }

    pub fn color(&self, role: &str) -> Color {
        self.colors.get(role).copied().unwrap_or(Color::Reset)
    }

    pub fn fg(&self, role: &str) -> Style {
        Style::default().fg(self.color(role))
    }

    pub fn bold(&self, role: &str) -> Style {
        self.fg(role).add_modifier(Modifier::BOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_theme_parses_and_names_every_role() {
        let dark = Theme::bundled("dark").unwrap();
        for (name, _) in BUNDLED {
            let theme = Theme::bundled(name).unwrap();
            assert_eq!(theme.colors.len(), dark.colors.len(), "{name}");
            for role in dark.colors.keys() {
                assert!(theme.colors.contains_key(role), "{name} lacks {role}");
            }
        }
        assert!(Theme::bundled("neon").is_err());
        let err = Theme::parse("user = \"not-a-colour\"", "my.toml", Some(&dark)).unwrap_err();
        assert!(err.to_string().starts_with("my.toml: `user`"), "{err}");
    }
}
