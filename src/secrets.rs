//! Secrets in text: provider API keys, tokens, private keys, and credential-looking values in
//! `*_KEY=` / `Authorization:` lines — found so that `plan` can flag them and a real summarizer
//! call can mask them before anything leaves the machine.
//!
//! Also found: credentials in URLs (`postgres://user:PASS@host`: the password, whatever it
//! looks like) and the values of the environment's own secrets (`*_API_KEY`, `*_TOKEN`,
//! `*_SECRET`, `*_PASSWORD` variables) wherever they appear — only values at least
//! `MIN_KEY_LEN` long, so a dummy key such as `ollama` masks nothing.
//!
//! Owns: the patterns, finding matches, and masking (`[REDACTED:<kind>]`). Pure but for reading
//! the environment's secret values once.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// The shortest value that can be a real key: shorter ones (`ollama`, `x`, a placeholder) are
/// never masked, since masking them would mask those letters everywhere.
pub const MIN_KEY_LEN: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMatch {
    pub kind: &'static str,
    pub range: Range<usize>,
}

/// A pattern: its kind, the regex, and the words one of which every match holds (compared
/// without ASCII case), so that a text holding none of them is not searched with it.
struct Pattern {
    kind: &'static str,
    re: Regex,
    needs: &'static [&'static str],
}

fn patterns() -> &'static [Pattern] {
    static P: OnceLock<Vec<Pattern>> = OnceLock::new();
    P.get_or_init(|| {
        type Row = (&'static str, &'static str, &'static [&'static str]);
        let table: &[Row] = &[
            // A whole block, or a block cut short (a tool output truncated mid-key).
            ("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s]*)", &["-----BEGIN "]),
            ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", &["sk-ant-"]),
            ("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", &["sk-"]),
            ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})", &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]),
            ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", &["xox"]),
            ("aws-access-key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", &["AKIA", "ASIA"]),
            ("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}", &["AIza"]),
            ("stripe-key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{20,}", &["k_live_", "k_test_"]),
            ("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}", &["hf_"]),
            ("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20,}", &["glpat-"]),
            ("npm-token", r"\bnpm_[A-Za-z0-9]{36}", &["npm_"]),
            ("groq-key", r"\bgsk_[A-Za-z0-9]{40,}", &["gsk_"]),
            ("xai-key", r"\bxai-[A-Za-z0-9]{40,}", &["xai-"]),
            ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", &["eyJ"]),
            // As a header line, or as a JSON/YAML key (`"Authorization": "Bearer …"`).
            ("bearer-token", r#"(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{16,})"#, &["authorization"]),
            // The password of a URL's user info (`scheme://user:PASS@host`).
            ("url-credentials", r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@", &["://"]),
            // `*_KEY=`, `*_TOKEN:`, `"api_key": "…"`, `x-api-key: …` and the like.
            ("credential-assignment", r#"(?i)\b(?:[A-Z0-9]+[_-])*(?:API_?KEY|KEY|SECRET|TOKEN|PASSWORD|PASSWD)(?:[_-][A-Z0-9]+)*["']?\s*[=:]\s*["']?([A-Za-z0-9._~+/=-]{16,})"#, &["key", "secret", "token", "passw"]),
        ];
        // Keys are ASCII: an ASCII word boundary keeps every search on the fast automata (a
        // Unicode one falls back to a slow engine on any non-ASCII text).
        table
            .iter()
            .filter_map(|(kind, p, needs)| {
                Regex::new(&p.replace(r"\b", r"(?-u:\b)"))
                    .ok()
                    .map(|re| Pattern { kind, re, needs })
            })
            .collect()
    })
}

/// Words a pattern's keyword ends with: a match holds one of them followed by a suffix (`_…`,
/// `-…`), a quote, spaces and `=` or `:`, so an occurrence followed by anything else
/// (`tokens`, `keyboard`, `token usage`) is no reason to search with the pattern.
const KEYWORD_ENDS: &[(&str, &[&str])] = &[("credential-assignment", &["key", "secret", "token"])];

/// Whether a match can go on after a keyword that ends at `at`: `(?:[_-][A-Z0-9]+)*["']?\s*`
/// then `=` or `:` (read greedily, which finds whatever backtracking would; a character
/// outside ASCII where a space or `=` could stand is taken as a space).
fn may_follow_keyword(text: &[u8], at: usize) -> bool {
    let mut i = at;
    while i < text.len() && matches!(text[i], b'_' | b'-') {
        let run = text[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if run == 0 {
            break;
        }
        i += 1 + run;
    }
    if i < text.len() && matches!(text[i], b'"' | b'\'') {
        i += 1;
    }
    while i < text.len() && (text[i].is_ascii_whitespace() || text[i] == 0x0b) {
        i += 1;
    }
    match text.get(i) {
        Some(b'=' | b':') => true,
        Some(b) => !b.is_ascii(),
        None => false,
    }
}

/// What one pass over a text tells of the patterns: which can match in it (a bit per
/// pattern), and where a credential assignment can (`None`: anywhere).
struct Words {
    may: u64,
    /// The starts of the assignment keywords after which a match can go on, in order.
    keywords: Option<Vec<usize>>,
}

/// Which patterns can match in `text` (a bit per pattern): those one of whose words it holds
/// (a keyword's end only where a match can go on after it), found in one pass, with where
/// those keywords stand. A text with a character that a case-insensitive pattern's letter
/// folds to outside ASCII (the Kelvin sign for `k`, the long s for `s`) may match any,
/// anywhere.
fn may_match(text: &str) -> Words {
    const FOLDS_TO_ASCII: [&str; 2] = ["\u{212a}", "\u{17f}"];
    let all = (1u64 << patterns().len()) - 1;
    static WORDS: OnceLock<Table> = OnceLock::new();
    let table = WORDS.get_or_init(|| {
        let mut words = Vec::new();
        let mut bits = Vec::new();
        let mut ends = Vec::new();
        for (i, p) in patterns().iter().enumerate() {
            for w in p.needs {
                words.push(*w);
                bits.push(1 << i);
                ends.push(
                    KEYWORD_ENDS
                        .iter()
                        .any(|(kind, ws)| *kind == p.kind && ws.contains(w)),
                );
            }
        }
        for w in FOLDS_TO_ASCII {
            words.push(w);
            bits.push(all);
            ends.push(false);
        }
        #[allow(clippy::expect_used, reason = "constant words")]
        let ac = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .expect("the words build");
        let longest = words.iter().map(|w| w.len()).max().unwrap_or(0);
        Table {
            ac,
            bits,
            ends,
            longest,
        }
    });
    let all_at = |range: &std::ops::Range<usize>| words_in(text, range.clone(), table);
    let parts = (text.len() / PARALLEL_TEXT).clamp(1, crate::par::cores());
    if parts < 2 {
        return all_at(&(0..text.len()));
    }
    // Cut into a part per core: a word is found in the part it starts in.
    let step = text.len().div_ceil(parts);
    let ranges: Vec<std::ops::Range<usize>> = (0..parts)
        .map(|k| k * step..((k + 1) * step).min(text.len()))
        .collect();
    let mut found = Words {
        may: 0,
        keywords: Some(Vec::new()),
    };
    for part in crate::par::each(&ranges, all_at) {
        found.may |= part.may;
        match (found.keywords.as_mut(), part.keywords) {
            (Some(at), Some(more)) => at.extend(more),
            _ => found.keywords = None,
        }
    }
    found
}

/// Texts at least this long are read on every core, in as many parts as there are cores
/// (in tests, short: the parts are then held to the whole).
const PARALLEL_TEXT: usize = if cfg!(test) { 64 } else { 1 << 20 };

/// The words of every pattern in one automaton: each word's pattern bits, whether it is a
/// keyword's end (see [`KEYWORD_ENDS`]), and the longest word's length in bytes.
struct Table {
    ac: aho_corasick::AhoCorasick,
    bits: Vec<u64>,
    ends: Vec<bool>,
    longest: usize,
}

/// [`may_match`] for the words that start in bytes `range` of `text`.
fn words_in(text: &str, range: std::ops::Range<usize>, table: &Table) -> Words {
    let Table {
        ac,
        bits,
        ends,
        longest,
    } = table;
    let all = (1u64 << patterns().len()) - 1;
    let assignment = assignment_bit();
    let bytes = text.as_bytes();
    // A word starting in the range ends at most the longest word's length past it.
    let end = (range.end + longest).min(bytes.len());
    let mut may = 0u64;
    let mut keywords = Some(Vec::new());
    for m in ac.find_overlapping_iter(&bytes[range.start..end]) {
        let (start, stop) = (range.start + m.start(), range.start + m.end());
        if start >= range.end {
            continue;
        }
        let w = m.pattern().as_usize();
        if ends[w] && !may_follow_keyword(bytes, stop) {
            continue;
        }
        if bits[w] == all {
            // A folded letter: any pattern, anywhere.
            return Words {
                may: all,
                keywords: None,
            };
        }
        if bits[w] == assignment {
            if let Some(at) = keywords.as_mut() {
                at.push(start);
            }
        }
        may |= bits[w];
    }
    if let Some(at) = keywords.as_mut() {
        at.sort_unstable();
    }
    Words { may, keywords }
}

/// The bit of the credential-assignment pattern.
fn assignment_bit() -> u64 {
    static BIT: OnceLock<u64> = OnceLock::new();
    *BIT.get_or_init(|| {
        patterns()
            .iter()
            .position(|p| p.kind == "credential-assignment")
            .map_or(0, |i| 1 << i)
    })
}

/// Whether a credential assignment's match can hold `c`: its name (ASCII letters and
/// digits, `_`, `-`, and the two characters that fold to an ASCII letter), quotes, spaces
/// (`\s`: White_Space), `=` and `:`, and its value's characters.
fn in_assignment(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '_' | '-' | '"' | '\'' | '=' | ':' | '.' | '~' | '+' | '/' | '\u{212a}' | '\u{17f}'
        )
        || c.is_whitespace()
}

/// The run of characters an assignment can hold around byte `at` of `text`: every match of
/// the pattern lies within one such run, so the runs holding a keyword are the only places
/// to search.
fn assignment_run(text: &str, at: usize) -> std::ops::Range<usize> {
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| in_assignment(c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .find(|&(_, c)| !in_assignment(c))
        .map_or(text.len(), |(i, _)| at + i);
    start..end
}

/// Secrets in `text`, in order, not overlapping. For assignment and header patterns the match
/// is the value only; and such a value must look random (not a word or a placeholder).
pub fn find(text: &str) -> Vec<SecretMatch> {
    find_with(text, env_secrets())
}

/// The values of the environment's secret variables, long enough to be keys (read once).
fn env_secrets() -> &'static [String] {
    static E: OnceLock<Vec<String>> = OnceLock::new();
    E.get_or_init(|| {
        let mut values: Vec<String> = std::env::vars()
            .filter(|(k, _)| is_secret_var(k))
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| v.len() >= MIN_KEY_LEN)
            .collect();
        // The longest first: a value that holds another is masked whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        values
    })
}

/// A variable whose name says it holds a secret.
fn is_secret_var(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    ["API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_APIKEY"]
        .iter()
        .any(|s| n.ends_with(s))
}

/// `find` with `env` as the environment's secret values.
fn find_with(text: &str, env: &[String]) -> Vec<SecretMatch> {
    let words = may_match(text);
    find_among(text, env, words.may, words.keywords.as_deref())
}

/// `find_with`, searching with the patterns whose bit is set in `may` only, and with the
/// credential-assignment pattern only in the runs around `keywords` (`None`: everywhere).
fn find_among(
    text: &str,
    env: &[String],
    may: u64,
    keywords: Option<&[usize]>,
) -> Vec<SecretMatch> {
    let mut found = Found::default();
    for value in env {
        for (at, v) in text.match_indices(value.as_str()) {
            found.push("env-secret", at..at + v.len());
        }
    }
    for (i, pattern) in patterns().iter().enumerate() {
        let bit = 1 << i;
        if may & bit == 0 {
            continue;
        }
        match keywords.filter(|_| bit == assignment_bit()) {
            Some(keywords) => {
                // Each run holding a keyword once, searched as the whole text would be there.
                let mut searched = 0;
                for &k in keywords {
                    if k < searched {
                        continue;
                    }
                    let run = assignment_run(text, k);
                    searched = run.end;
                    matches_in(pattern, &text[..run.end], run.start, &mut found);
                }
            }
            None => matches_in(pattern, text, 0, &mut found),
        }
    }
    let mut out = found.out;
    out.sort_by_key(|m| m.range.start);
    out
}

/// The matches kept so far, and their ranges by start: kept ranges never overlap, so a range
/// overlaps one of them exactly when it overlaps the last that starts before its end (found
/// in a logarithmic step, however many secrets a text holds).
#[derive(Default)]
struct Found {
    out: Vec<SecretMatch>,
    taken: std::collections::BTreeMap<usize, usize>,
}

impl Found {
    /// Keeps a match of `kind` over `range` unless it overlaps one kept before.
    fn push(&mut self, kind: &'static str, range: Range<usize>) {
        let overlaps = self
            .taken
            .range(..range.end)
            .next_back()
            .is_some_and(|(_, &end)| end > range.start);
        if !overlaps && !range.is_empty() {
            self.taken.insert(range.start, range.end);
            self.out.push(SecretMatch { kind, range });
        }
    }
}

/// The matches of `pattern` in `text` from byte `from` on, each kept in `found` unless it
/// overlaps one found before.
fn matches_in(pattern: &Pattern, text: &str, from: usize, found: &mut Found) {
    let Pattern { kind, re, .. } = pattern;
    let mut at = from;
    // Found with the fast automata; groups resolved only where something matched.
    while let Some(whole) = re.find_at(text, at) {
        at = if whole.end() > whole.start() {
            whole.end()
        } else {
            // An empty match (no pattern has one) moves on by a character.
            text[whole.end()..]
                .chars()
                .next()
                .map_or(text.len() + 1, |c| whole.end() + c.len_utf8())
        };
        let range = re.captures_at(text, whole.start()).and_then(|caps| {
            let m = caps.get(1).or_else(|| caps.get(0))?;
            let value_only = caps.get(1).is_some() && *kind != "url-credentials";
            (!value_only || looks_random(m.as_str())).then(|| m.range())
        });
        if let Some(range) = range {
            found.push(kind, range);
        }
        if at > text.len() {
            break;
        }
    }
}

/// The kinds of what [`find`] finds in the text `pieces` make joined by line breaks, in order,
/// each piece searched alone; `None` when a match could cross a break between two pieces (the
/// joined text is then to be searched). A match crosses a break only through a pattern's `\s`
/// (a private key's body, the spaces of a header or an assignment) or an environment value
/// holding a space. So none does when no piece begins a private key, no environment value
/// holds a space, and the first character after each break, past spaces and blank pieces, is
/// one none of those patterns takes after a space (`[`, the start of a transcript's block).
pub fn kinds_of_pieces<S: AsRef<str>>(
    pieces: impl Iterator<Item = S>,
) -> Option<Vec<&'static str>> {
    let spaced_env = || {
        env_secrets()
            .iter()
            .any(|v| v.chars().any(char::is_whitespace))
    };
    let mut kinds = Vec::new();
    let mut after_break = false;
    // Whether a piece read so far begins a private key (one piece alone is searched whole).
    let mut key_begun = false;
    for (k, piece) in pieces.enumerate() {
        let piece = piece.as_ref();
        key_begun |= piece.contains("-----BEGIN ");
        if k > 0 && (key_begun || (k == 1 && spaced_env())) {
            return None;
        }
        after_break |= k > 0;
        if after_break {
            match piece.trim_start().chars().next() {
                Some(c) if continues_after_space(c) => return None,
                Some(_) => after_break = false,
                // Blank: the next piece's first character decides.
                None => {}
            }
        }
        kinds.extend(find(piece).into_iter().map(|m| m.kind));
    }
    Some(kinds)
}

/// Whether a pattern can take `c` right after a space: a header's or assignment's `=`, `:`,
/// quote, scheme word or value (letters of any script, for case-insensitive words).
fn continues_after_space(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_alphanumeric() || "._~+/=-:\"'".contains(c)
}

/// `text` with the environment's own secret values masked (`[REDACTED:env-secret]`), and
/// nothing else: for outputs that show the session's secrets on purpose (a plan shows the
/// summarizer's exact input) but must never show the user's own keys.
pub fn mask_env(text: &str) -> std::borrow::Cow<'_, str> {
    let env = env_secrets();
    if !env.iter().any(|v| text.contains(v.as_str())) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for v in env {
        out = out.replace(v.as_str(), "[REDACTED:env-secret]");
    }
    std::borrow::Cow::Owned(out)
}

/// `text` with every secret replaced by `[REDACTED:<kind>]`, and how many were replaced.
pub fn mask(text: &str) -> (String, usize) {
    let (masked, n) = mask_cow(text);
    (masked.into_owned(), n)
}

/// [`mask`], lending `text` back when it holds no secret.
pub fn mask_cow(text: &str) -> (std::borrow::Cow<'_, str>, usize) {
    let found = find(text);
    if found.is_empty() {
        return (std::borrow::Cow::Borrowed(text), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for m in &found {
        out.push_str(&text[at..m.range.start]);
        out.push_str(&format!("[REDACTED:{}]", m.kind));
        at = m.range.end;
    }
    out.push_str(&text[at..]);
    (std::borrow::Cow::Owned(out), found.len())
}

/// Shannon entropy per character above 3.5 bits with letters and digits mixed: a generated
/// token, not a word, a path or `changeme`.
fn looks_random(value: &str) -> bool {
    let has_digit = value.bytes().any(|b| b.is_ascii_digit());
    let has_alpha = value.bytes().any(|b| b.is_ascii_alphabetic());
    if !(has_digit && has_alpha) {
        return false;
    }
    let mut counts = [0usize; 256];
    for b in value.bytes() {
        counts[b as usize] += 1;
    }
    let n = value.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum();
    entropy > 3.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn url_passwords_and_the_environment_s_own_long_keys_are_found() {
        let env = vec!["Zk8qPlm3Vx9Rt2Wn7Yb4".to_string()];
        let text = "db at postgres://app:PASS@db:5432/x; key Zk8qPlm3Vx9Rt2Wn7Yb4 twice Zk8qPlm3Vx9Rt2Wn7Yb4";
        let found = find_with(text, &env);
        let kinds: Vec<(&str, &str)> = found
            .iter()
            .map(|m| (m.kind, &text[m.range.clone()]))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("url-credentials", "PASS"),
                ("env-secret", "Zk8qPlm3Vx9Rt2Wn7Yb4"),
                ("env-secret", "Zk8qPlm3Vx9Rt2Wn7Yb4"),
            ]
        );
        assert!(is_secret_var("OPENAI_API_KEY") && is_secret_var("GITHUB_TOKEN"));
        assert!(!is_secret_var("PATH") && !is_secret_var("TOKENIZER"));
    }

    #[test]
    fn finds_provider_keys_tokens_and_pem_blocks() {
        let text = "key sk-proj-abcDEF1234567890ghijKLMN and sk-ant-api03-AAAABBBBCCCCDDDD1234 \
            gh ghp_0123456789abcdefghijABCDEFGHIJ0123 aws AKIAIOSFODNN7EXAMPLE \
            jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n\
            -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----";
        let kinds: Vec<&str> = find(text).iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                "openai-key",
                "anthropic-key",
                "github-token",
                "aws-access-key",
                "jwt",
                "private-key"
            ]
        );
    }

    #[test]
    fn assignments_and_headers_need_a_random_value() {
        let found =
            find("export OPENAI_API_KEY=9f8e7d6c5b4a3f2e1d0c9b8a\nDB_PASSWORD=changeme_please_now");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, "credential-assignment");
        let header = find("Authorization: Bearer q8Zr3kLm29XvPa0Wn7Tb");
        assert_eq!(header.len(), 1);
        assert_eq!(header[0].kind, "bearer-token");
        assert!(find("the token budget is 8000 and the path is src/secrets.rs").is_empty());
    }

    #[test]
    fn any_key_name_and_json_shapes_count() {
        let text = r#"STRIPE_SIGNING_KEY=9f8e7d6c5b4a3f2e1d0c9b8a
{"api_key": "Zq81mP0xL4vB7nW2tY6r", "headers": {"Authorization": "Bearer q8Zr3kLm29XvPa0Wn7Tb"}}
x-api-key: k3J9x0Pq7LmN2vB5tR8w
DB_PASSWORD: 'u7Y!x' MONKEY=1234567890123456"#;
        let kinds: Vec<&str> = find(text).iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                "credential-assignment",
                "credential-assignment",
                "bearer-token",
                "credential-assignment"
            ]
        );
    }

    #[test]
    fn more_provider_prefixes_and_a_cut_pem_block() {
        let text = "glpat-Ab3dEf6hIj9kLm2nOp5q npm_0123456789abcdefghijABCDEFGHIJ012345 \
            gsk_0123456789abcdefghijABCDEFGHIJ0123456789ab \
            -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ";
        let kinds: Vec<&str> = find(text).iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            ["gitlab-token", "npm-token", "groq-key", "private-key"]
        );
        let (masked, _) = mask(text);
        assert!(!masked.contains("b3BlbnNzaC1rZXkt"), "{masked}");
    }

    proptest::proptest! {
        /// Searched a piece at a time, a text made of pieces joined by line breaks finds the
        /// kinds the joined text finds, whenever `kinds_of_pieces` answers: keys, headers and
        /// assignments cut by a break, a private key begun in one piece and ended in another.
        /// Fails when a break followed by a value or `:` is taken as one no match crosses.
        #[test]
        fn pieces_find_what_the_joined_text_finds(
            pieces in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec![
                    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
                    "MIIEowIBAAKCAQEA", "Authorization:", " Bearer ", "Bearer", "token",
                    "abcdefghijklmnop0123456789XYZ", "[user] ", "api_key=", "API_KEY",
                    "\n", " ", ":", "=", "sk-proj-Zq3xW9vBZq3xW9vBZq3xW9vB", "x", "\"",
                ]), 0..5).prop_map(|w| w.concat()),
                0..6,
            )
        ) {
            let joined = pieces.join("\n");
            let want: Vec<&str> = find(&joined).into_iter().map(|m| m.kind).collect();
            if let Some(got) = kinds_of_pieces(pieces.iter()) {
                proptest::prop_assert_eq!(got, want, "{:?}", pieces);
            }
        }
    }

    /// A transcript's blocks (each after a blank line, starting with `[`) are searched a
    /// piece at a time, unless a private key is begun in one of them.
    #[test]
    fn a_transcript_is_searched_a_block_at_a_time() {
        let key = format!("sk-proj-{}", "Zq3xW9vB".repeat(4));
        let blocks = [
            "prompt",
            "",
            "[user] Authorization:",
            "",
            &*format!("[tool] {key}"),
        ];
        let kinds = kinds_of_pieces(blocks.iter()).expect("no match crosses a block");
        assert_eq!(kinds, vec!["openai-key"]);
        let keyed = [
            "[tool] -----BEGIN RSA PRIVATE KEY-----",
            "",
            "[tool] -----END RSA PRIVATE KEY-----",
        ];
        assert_eq!(kinds_of_pieces(keyed.iter()), None);
        let crossing = ["[user] Authorization:", "Bearer abcdefghijklmnop0123"];
        assert_eq!(kinds_of_pieces(crossing.iter()), None);
    }

    #[test]
    fn masking_replaces_each_secret() {
        let (masked, n) = mask("use sk-proj-abcDEF1234567890ghijKLMN now");
        assert_eq!(n, 1);
        assert_eq!(masked, "use [REDACTED:openai-key] now");
        assert_eq!(mask("nothing here"), ("nothing here".to_string(), 0));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Searching only with the patterns whose words the text holds, and for a credential
        /// assignment only in the runs around its keywords, finds what searching the whole
        /// text with all of them finds.
        #[test]
        fn the_word_filter_never_changes_what_is_found(
            pieces in proptest::collection::vec(proptest::sample::select(&[
                "sk-", "sk-ant-", "ghp_", "github_pat_", "xoxb-", "AKIA", "ASIA", "AIza", "rk_live_",
                "sk_test_", "hf_", "glpat-", "npm_", "gsk_", "xai-", "eyJ", ".", "-----BEGIN ",
                "RSA PRIVATE KEY-----", "Authorization", "AUTHORIZATION: ", "Bearer ", "https://",
                "u:", "@", "api_key", "API-KEY", "Secret", "TOKEN", "passwd", "PASSWORD", "\u{212a}ey",
                "\u{17f}ecret", "=", ": ", "\"", " ", "\n", "Zk8qPlm3Vx9Rt2Wn7Yb4", "a1B2c3D4e5F6g7H8i9J0",
                "0123456789abcdefghijABCDEFGHIJ0123456789", "_", "x", "tokens", "KEYS", "key", "s",
                "-", "'", "\u{a0}", "\u{3000}", "\u{b}", "\t", "secretary", "_ID", ",", "(", ".", "/",
                "+", "~", "\u{e9}", "{", "sk-ant-api03-AAAABBBBCCCCDDDD1234",
            ][..]), 0..16),
        ) {
            let text: String = pieces.concat();
            proptest::prop_assert_eq!(
                find_with(&text, &[]),
                find_among(&text, &[], u64::MAX, None),
                "{:?}", text
            );
        }
    }

    proptest::proptest! {
        /// A match is kept when it overlaps none kept before: looking only at the kept range
        /// that starts last before its end keeps what comparing it with every kept one keeps.
        #[test]
        fn a_match_is_kept_when_it_overlaps_none_kept_before(
            ranges in proptest::collection::vec((0usize..60, 1usize..12), 0..40),
        ) {
            let mut found = Found::default();
            let mut every: Vec<Range<usize>> = Vec::new();
            for (start, len) in ranges {
                let r = start..start + len;
                found.push("x", r.clone());
                if !every.iter().any(|o| o.start < r.end && r.start < o.end) {
                    every.push(r);
                }
            }
            let kept: Vec<Range<usize>> = found.out.iter().map(|m| m.range.clone()).collect();
            proptest::prop_assert_eq!(kept, every);
        }
    }

    #[test]
    fn a_pattern_whose_words_are_absent_is_not_searched_with() {
        let bit = |kind: &str| 1u64 << patterns().iter().position(|p| p.kind == kind).unwrap_or(63);
        let may = may_match("export OPENAI_API_KEY=abc; see https://x").may;
        assert_ne!(may & bit("credential-assignment"), 0);
        assert_ne!(may & bit("url-credentials"), 0);
        assert_eq!(may & bit("jwt"), 0);
        assert_eq!(may & bit("private-key"), 0);
        assert_eq!(may_match("plain words only").may, 0);
        // A keyword's word followed by what no match can hold after it.
        assert_eq!(
            may_match("input_tokens, keyboard, secretary, a token here, TOKEN_ID _, key").may,
            0
        );
        for after in [
            "_ID=", "-x-2:", "\"=", "': ", " \t=", "=", ":", "\u{a0}", " \u{b}:",
        ] {
            let may = may_match(&format!("token{after}")).may;
            assert_ne!(may & bit("credential-assignment"), 0, "{after:?}");
        }
        let all = (1u64 << patterns().len()) - 1;
        assert_eq!(may_match("\u{212a}EY").may, all);
        assert_eq!(may_match("pa\u{17f}\u{17f}word").may, all);
    }
}
