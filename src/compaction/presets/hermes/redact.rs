//! Hermes 0.19.0 `agent.redact.redact_sensitive_text` (default arguments, redaction on — the
//! default config): the same patterns, in the same order, behind the same substring gates
//! (some gates change the result, e.g. the config-key rules skip any text holding `://`).
//! Used on everything the summarizer is shown.

use std::sync::OnceLock;

use fancy_regex::{Captures, Regex};

use super::py;

const PREFIX_PATTERNS: &[&str] = &[
    r"sk-[A-Za-z0-9_-]{10,}",
    r"ghp_[A-Za-z0-9]{10,}",
    r"github_pat_[A-Za-z0-9_]{10,}",
    r"gho_[A-Za-z0-9]{10,}",
    r"ghu_[A-Za-z0-9]{10,}",
    r"ghs_[A-Za-z0-9]{10,}",
    r"ghr_[A-Za-z0-9]{10,}",
    r"xapp-\d+-[A-Za-z0-9-]{10,}",
    r"xox[baprs]-[A-Za-z0-9-]{10,}",
    r"AIza[A-Za-z0-9_-]{30,}",
    r"pplx-[A-Za-z0-9]{10,}",
    r"fal_[A-Za-z0-9_-]{10,}",
    r"fc-[A-Za-z0-9]{10,}",
    r"bb_live_[A-Za-z0-9_-]{10,}",
    r"gAAAA[A-Za-z0-9_=-]{20,}",
    r"AKIA[A-Z0-9]{16}",
    r"sk_live_[A-Za-z0-9]{10,}",
    r"sk_test_[A-Za-z0-9]{10,}",
    r"rk_live_[A-Za-z0-9]{10,}",
    r"SG\.[A-Za-z0-9_-]{10,}",
    r"hf_[A-Za-z0-9]{10,}",
    r"r8_[A-Za-z0-9]{10,}",
    r"npm_[A-Za-z0-9]{10,}",
    r"pypi-[A-Za-z0-9_-]{10,}",
    r"dop_v1_[A-Za-z0-9]{10,}",
    r"doo_v1_[A-Za-z0-9]{10,}",
    r"am_[A-Za-z0-9_-]{10,}",
    r"sk_[A-Za-z0-9_]{10,}",
    r"tvly-[A-Za-z0-9]{10,}",
    r"exa_[A-Za-z0-9]{10,}",
    r"gsk_[A-Za-z0-9]{10,}",
    r"syt_[A-Za-z0-9]{10,}",
    r"retaindb_[A-Za-z0-9]{10,}",
    r"hsk-[A-Za-z0-9]{10,}",
    r"mem0_[A-Za-z0-9]{10,}",
    r"brv_[A-Za-z0-9]{10,}",
    r"xai-[A-Za-z0-9]{30,}",
    r"ntn_[A-Za-z0-9]{10,}",
    r"fw-[A-Za-z0-9]{30,}",
    r"fw_[A-Za-z0-9]{30,}",
    r"fpk_[A-Za-z0-9]{30,}",
];

const SECRET_ENV_NAMES: &str = r"(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)";
const SECRET_CFG_NAMES: &str = r"(?:api[ _.\-]?key|token|secret|passwd|password|credential|auth)";
const CFG_VALUE: &str = r#"(['"]?)([^\s&]+?)\2(?=[\s&]|$)"#;
const YAML_CFG_NAMES: &str = r"(?:api[ _.\-]?key|token|secret|passwd|password|credential)";
const JSON_KEY_NAMES: &str = r"(?:api_?[Kk]ey|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value|raw_secret|secret_input|key_material)";

struct Patterns {
    gates: Gates,
    prefix: Regex,
    env_assign: Regex,
    env_lookup: Regex,
    cfg_dotted: Regex,
    cfg_anchored: Regex,
    yaml: Regex,
    json_field: Regex,
    auth_header: Regex,
    secret_header: Regex,
    telegram: Regex,
    private_key: Regex,
    db_connstr: Regex,
    url_bare_token: Regex,
    jwt: Regex,
    form_body: Regex,
    phone: Regex,
}

/// Necessary conditions of the patterns that need the backtracking engine (look-arounds,
/// back-references): each is the pattern's own core without them, searched by the regex
/// crate's automata. A text none of whose cores occur cannot match, and is not searched again.
struct Gates {
    prefix: regex::Regex,
    env_names: regex::Regex,
    cfg_names: regex::Regex,
    yaml_names: regex::Regex,
    phone: regex::Regex,
}

fn gates() -> Result<Gates, regex::Error> {
    Ok(Gates {
        prefix: regex::Regex::new(&PREFIX_PATTERNS.join("|"))?,
        env_names: regex::Regex::new(SECRET_ENV_NAMES)?,
        cfg_names: regex::Regex::new(&format!("(?i){SECRET_CFG_NAMES}"))?,
        yaml_names: regex::Regex::new(&format!("(?i){YAML_CFG_NAMES}"))?,
        phone: regex::Regex::new(r"\+[1-9]\d{6,14}")?,
    })
}

fn build() -> Result<Patterns, Box<dyn std::error::Error>> {
    let r = |p: &str| Regex::new(p).map_err(Box::new);
    Ok(Patterns {
        gates: gates()?,
        prefix: r(&format!(
            r"(?<![A-Za-z0-9_-])({})(?![A-Za-z0-9_-])",
            PREFIX_PATTERNS.join("|")
        ))?,
        env_assign: r(&format!(
            r#"([A-Z0-9_]{{0,50}}{SECRET_ENV_NAMES}[A-Z0-9_]{{0,50}})\s*=\s*(['"]?)(\S+)\2"#
        ))?,
        env_lookup: r(r"^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)")?,
        cfg_dotted: r(&format!(
            r"(?i)((?:[A-Za-z0-9_\-]+\.)+[A-Za-z0-9_.\-]*{SECRET_CFG_NAMES}[A-Za-z0-9_.\-]*|[A-Za-z0-9_.\-]*{SECRET_CFG_NAMES}[A-Za-z0-9_.\-]*\.[A-Za-z0-9_.\-]+)={CFG_VALUE}"
        ))?,
        cfg_anchored: r(&format!(
            r"(?im)(^[ \t]*(?:export[ \t]+)?[A-Za-z0-9_\-]*{SECRET_CFG_NAMES}[A-Za-z0-9_\-]*)={CFG_VALUE}"
        ))?,
        yaml: r(&format!(
            r#"(?im)(^[ \t]*[A-Za-z0-9_.\-]*{YAML_CFG_NAMES}[A-Za-z0-9_.\-]*)(:[ \t]*)(?!['"])([^\s&]+)"#
        ))?,
        json_field: r(&format!(r#"(?i)("{JSON_KEY_NAMES}")\s*:\s*"([^"]+)""#))?,
        auth_header: r(r#"(?i)((?:Proxy-)?Authorization:\s*)([A-Za-z][\w.+-]*\s+)?([^\s"']+)"#)?,
        secret_header: r(
            r"(?i)((?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)\s*:\s*)(\S+)",
        )?,
        telegram: r(r"(bot)?(\d{8,}):([-A-Za-z0-9_]{30,})")?,
        private_key: r(
            r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----",
        )?,
        db_connstr: r(
            r"(?i)((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^:\s]+:)([^@\s]+)(@)",
        )?,
        url_bare_token: r(
            r"(?i)((?:https?|wss?|git|ssh|ftp|ftps|sftp)://)([^\s:@/]{8,})(@[^\s]+)",
        )?,
        jwt: r(r"eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}")?,
        form_body: r(r"^[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&\s]*)+$")?,
        phone: r(r"(\+[1-9]\d{6,14})(?![A-Za-z0-9])")?,
    })
}

fn patterns() -> Option<&'static Patterns> {
    static P: OnceLock<Option<Patterns>> = OnceLock::new();
    P.get_or_init(|| build().ok()).as_ref()
}

/// `_mask_token`: under 18 characters fully masked, else first 6 … last 4.
fn mask_token(token: &str) -> String {
    if py::len(token) < 18 {
        return "***".into();
    }
    format!("{}...{}", py::head(token, 6), py::tail(token, 4))
}

fn group<'t>(c: &Captures<'t, str>, i: usize) -> &'t str {
    c.get(i).map_or("", |m| m.as_str())
}

fn sub(re: &Regex, text: &str, f: impl Fn(&Captures<'_, str>) -> String) -> String {
    re.replace_all(text, |c: &Captures<'_, str>| f(c))
        .into_owned()
}

/// `sub` of each line of `text` that `gate` lets through, the other lines copied: the same
/// as `sub` of the whole text for a pattern no match of which holds a line break (no `\s` and
/// no `.` that could match one), whose `^`/`$` are of lines or of the text and whose look-arounds
/// peek at a character of the same line or at the break, when every line it matches in passes
/// `gate`. The backtracking engine then reads only the lines that hold the pattern's core.
fn sub_lines(
    re: &Regex,
    text: &str,
    gate: impl Fn(&str) -> bool,
    f: impl Fn(&Captures<'_, str>) -> String,
) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if gate(line) {
            out.push_str(&sub(re, line, &f));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `redact_sensitive_text(text)`.
pub fn redact(text: &str) -> String {
    let Some(p) = patterns() else {
        return text.to_string();
    };
    if text.is_empty() {
        return String::new();
    }
    let mut t = if p.gates.prefix.is_match(text) {
        sub(&p.prefix, text, |c| mask_token(group(c, 1)))
    } else {
        text.to_string()
    };
    let redact_env = |c: &Captures<'_, str>| {
        let (name, quote, value) = (group(c, 1), group(c, 2), group(c, 3));
        if p.env_lookup.is_match(value).unwrap_or(false) {
            return group(c, 0).to_string();
        }
        format!("{name}={quote}{}{quote}", mask_token(value))
    };
    if t.contains('=') {
        if p.gates.env_names.is_match(&t) {
            t = sub(&p.env_assign, &t, redact_env);
        }
        if !t.contains("://") && p.gates.cfg_names.is_match(&t) {
            let gate = |line: &str| line.contains('=') && p.gates.cfg_names.is_match(line);
            t = sub_lines(&p.cfg_dotted, &t, gate, redact_env);
            t = sub_lines(&p.cfg_anchored, &t, gate, redact_env);
        }
    }
    if t.contains(':') && t.contains('"') {
        t = sub(&p.json_field, &t, |c| {
            let value = group(c, 2);
            if p.env_lookup.is_match(value).unwrap_or(false) {
                return group(c, 0).to_string();
            }
            format!("{}: \"{}\"", group(c, 1), mask_token(value))
        });
    }
    if t.contains(':') && !t.contains("://") && p.gates.yaml_names.is_match(&t) {
        let gate = |line: &str| line.contains(':') && p.gates.yaml_names.is_match(line);
        t = sub_lines(&p.yaml, &t, gate, |c| {
            let value = group(c, 3);
            if p.env_lookup.is_match(value).unwrap_or(false) {
                return group(c, 0).to_string();
            }
            format!("{}{}{}", group(c, 1), group(c, 2), mask_token(value))
        });
    }
    redact_rest(p, t)
}

fn redact_rest(p: &Patterns, mut t: String) -> String {
    if t.contains("uthorization") || t.contains("UTHORIZATION") {
        t = sub(&p.auth_header, &t, |c| {
            format!("{}{}{}", group(c, 1), group(c, 2), mask_token(group(c, 3)))
        });
    }
    if t.contains(':') {
        t = sub(&p.secret_header, &t, |c| {
            format!("{}{}", group(c, 1), mask_token(group(c, 2)))
        });
        t = sub(&p.telegram, &t, |c| {
            format!("{}{}:***", group(c, 1), group(c, 2))
        });
    }
    if t.contains("BEGIN") && t.contains("-----") {
        t = sub(&p.private_key, &t, |_| "[REDACTED PRIVATE KEY]".into());
    }
    if t.contains("://") {
        t = sub(&p.db_connstr, &t, |c| {
            format!("{}***{}", group(c, 1), group(c, 3))
        });
        t = sub(&p.url_bare_token, &t, |c| {
            format!("{}{}{}", group(c, 1), mask_token(group(c, 2)), group(c, 3))
        });
    }
    if t.contains("eyJ") {
        t = sub(&p.jwt, &t, |c| mask_token(group(c, 0)));
    }
    if t.contains('&') && t.contains('=') {
        t = redact_form_body(p, t);
    }
    if t.contains('+') && p.gates.phone.is_match(&t) {
        t = sub(&p.phone, &t, |c| {
            let phone = group(c, 1);
            if py::len(phone) <= 8 {
                format!("{}****{}", py::head(phone, 2), py::tail(phone, 2))
            } else {
                format!("{}****{}", py::head(phone, 4), py::tail(phone, 4))
            }
        });
    }
    t
}

const SENSITIVE_QUERY_PARAMS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "token",
    "api_key",
    "apikey",
    "client_secret",
    "password",
    "auth",
    "jwt",
    "session",
    "secret",
    "key",
    "code",
    "signature",
    "x-amz-signature",
];

fn redact_form_body(p: &Patterns, t: String) -> String {
    if t.contains('\n') || !t.contains('&') {
        return t;
    }
    let stripped = t.trim_matches(py::is_space);
    if !p.form_body.is_match(stripped).unwrap_or(false) {
        return t;
    }
    stripped
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if SENSITIVE_QUERY_PARAMS.contains(&key.to_lowercase().as_str()) => {
                format!("{key}=***")
            }
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile_and_mask_like_hermes() {
        assert!(patterns().is_some());
        assert_eq!(
            redact(
                r#"{"output": "SHIPPING_TOKEN=ghp_AbCdEf0123456789abcdef\nX_API_KEY=sk-proj-abcdefghijklmnop"}"#
            ),
            r#"{"output": "SHIPPING_TOKEN=ghp_Ab...op"}"#
        );
        assert_eq!(
            redact("password: hunter2 and Authorization: Bearer abcdefghijklmnopqrstuvwxyz +14155552671"),
            "password: *** and Authorization: Bearer abcdef...wxyz +141****2671"
        );
        assert_eq!(
            redact("export STRIPE_API_KEY=sk_live_0123456789abcdef"),
            "export STRIPE_API_KEY=***"
        );
        assert_eq!(redact("no secrets here"), "no secrets here");
    }

    proptest::proptest! {
        /// Line by line, each line that holds the pattern's core: what the whole text gives.
        #[test]
        fn line_patterns_replaced_line_by_line_as_in_the_whole_text(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                "api.token", "my.secret.x", "Auth", "password", "export ", "  ", "\t", "\n",
                "=", ":", ": ", "'", "\"", "&", "val", "x.y", "-", "_key", "é", "\r\n", "'v'",
            ]), 0..40)
        ) {
            let p = patterns().expect("patterns");
            let text: String = pieces.concat();
            let mask = |c: &Captures<'_, str>| format!("<{}>", group(c, 1));
            let cfg = |line: &str| line.contains('=') && p.gates.cfg_names.is_match(line);
            let yaml = |line: &str| line.contains(':') && p.gates.yaml_names.is_match(line);
            for (re, gate) in [
                (&p.cfg_dotted, &cfg as &dyn Fn(&str) -> bool),
                (&p.cfg_anchored, &cfg),
                (&p.yaml, &yaml),
            ] {
                proptest::prop_assert_eq!(
                    sub_lines(re, &text, gate, mask),
                    sub(re, &text, mask),
                    "{:?} in {:?}", re.as_str(), text
                );
            }
        }
    }
}
