//! Themes: semantic roles (a role colour, a fate shade, a gauge), never raw colours in views.
//!
//! Owns: the bundled themes in `themes/` (dark, light, high-contrast), embedded in the binary;
//! choosing one (`--theme`, then `theme =` in the config file, then dark); reading a user's theme
//! file over a bundled one; the syntect theme each names (`syntax = "…"`); and showing roles at
//! the terminal's colour depth — with no colour at all (`NO_COLOR`), roles whose colour carried a
//! meaning get a modifier instead. Must not draw, nor hold per-frame state beyond the
//! highlighter's cache.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

use super::color_depth::ColorDepth;
use super::highlight::{self, Highlighter};
use crate::config::{self, ConfigError};

const BUNDLED: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// The theme when neither `--theme` nor the config file names one.
pub const DEFAULT_THEME: &str = "dark";

/// The key of a theme file naming its syntect theme (every other key is a role).
const SYNTAX_KEY: &str = "syntax";

/// Without colour, what stands in for a role's colour where the colour meant something.
const EMPHASIS: &[(&str, Modifier)] = &[
    ("cut", Modifier::BOLD.union(Modifier::UNDERLINED)),
    ("group_broken", Modifier::BOLD.union(Modifier::UNDERLINED)),
    ("error", Modifier::BOLD.union(Modifier::UNDERLINED)),
    ("dropped", Modifier::DIM.union(Modifier::CROSSED_OUT)),
    ("pinned", Modifier::BOLD),
    ("mark", Modifier::BOLD),
    ("threshold", Modifier::BOLD),
    ("warn", Modifier::BOLD),
    ("gauge_high", Modifier::BOLD),
    ("summarized", Modifier::DIM),
    ("dim", Modifier::DIM),
    ("event", Modifier::DIM),
    ("group", Modifier::DIM),
    ("bar_overhead", Modifier::DIM),
];

#[derive(Debug, Clone)]
pub struct Theme {
    colors: BTreeMap<String, Color>,
    syntax: String,
    depth: ColorDepth,
    highlighter: Highlighter,
}

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme `{name}`; bundled themes: dark, light, high-contrast{}",
        .user_path.as_ref().map_or(String::new(), |p| format!("; a user theme would be {p}")))]
    Unknown {
        name: String,
        user_path: Option<String>,
    },
    #[error("{source_name}: {message}")]
    Invalid {
        source_name: String,
        message: String,
    },
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl Theme {
    /// The theme the inspector runs with: `flag` (`--theme`) if given, else `theme =` in
    /// `<config_dir>/config.toml`, else dark; shown at the terminal's colour depth (none with
    /// `no_color` or `NO_COLOR`), highlighting in the background.
    ///
    /// # Errors
    /// An unknown theme name, or a config or theme file that cannot be read or parsed (the
    /// error names the file).
    pub fn load(
        flag: Option<&str>,
        no_color: bool,
        config_dir: Option<&Path>,
        config_limit: u64,
    ) -> Result<Theme, ThemeError> {
        let depth = ColorDepth::detect(no_color);
        let theme = Theme::load_within(flag, config_dir, depth, config_limit)?;
        Ok(theme.in_background())
    }

    /// `load` with the colour depth given rather than read from the environment.
    ///
    /// # Errors
    /// As `load`.
    pub fn load_with(
        flag: Option<&str>,
        config_dir: Option<&Path>,
        depth: ColorDepth,
    ) -> Result<Theme, ThemeError> {
        Theme::load_within(flag, config_dir, depth, crate::limits::DEFAULT_CONFIG)
    }

    /// `load_with`, each file read bounded by `limit` bytes.
    fn load_within(
        flag: Option<&str>,
        config_dir: Option<&Path>,
        depth: ColorDepth,
        limit: u64,
    ) -> Result<Theme, ThemeError> {
        let configured = match config_dir {
            Some(dir) => config::read_user_config_within(dir, limit)?.theme,
            None => None,
        };
        let name = flag.or(configured.as_deref()).unwrap_or(DEFAULT_THEME);
        Ok(Theme::named(name, config_dir, limit)?.with_depth(depth))
    }

    /// `<config_dir>/themes/NAME.toml` read over the bundled theme of that name (or over dark);
    /// a bundled theme when there is no such file.
    fn named(name: &str, config_dir: Option<&Path>, limit: u64) -> Result<Theme, ThemeError> {
        let user = config_dir.and_then(|dir| config::user_theme_path(dir, name));
        let Some(path) = user.as_ref().filter(|p| p.is_file()) else {
            return Theme::bundled(name).map_err(|_| ThemeError::Unknown {
                name: name.to_string(),
                user_path: user.map(|p| p.display().to_string()),
            });
        };
        let shown = path.display().to_string();
        let text = config::read_text(path, limit).map_err(|message| ThemeError::Invalid {
            source_name: shown.clone(),
            message,
        })?;
        let base = Theme::bundled(name).unwrap_or_else(|_| Theme::dark());
        Theme::parse(&text, &shown, Some(&base))
    }

    /// A bundled theme in full colour, highlighting on the calling thread.
    pub fn bundled(name: &str) -> Result<Theme, ThemeError> {
        let text = BUNDLED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| ThemeError::Unknown {
                name: name.to_string(),
                user_path: None,
            })?;
        Theme::parse(text, name, None)
    }

    /// The default theme, which every bundled theme test guarantees parses.
    pub fn dark() -> Theme {
        Theme::bundled(DEFAULT_THEME).unwrap_or_else(|_| Theme {
            colors: BTreeMap::new(),
            syntax: String::new(),
            depth: ColorDepth::TrueColor,
            highlighter: Highlighter::off(),
        })
    }

    /// Parses a theme file; what it does not name comes from `base`. Over a base, a key that is
    /// not one of the base's roles is an error (a misspelt role would silently do nothing).
    pub fn parse(text: &str, source_name: &str, base: Option<&Theme>) -> Result<Theme, ThemeError> {
        let invalid = |message: String| ThemeError::Invalid {
            source_name: source_name.to_string(),
            message,
        };
        let mut table: BTreeMap<String, String> =
            toml::from_str(text).map_err(|e| invalid(config::toml_error_line(text, &e)))?;
        let syntax = match table.remove(SYNTAX_KEY) {
            Some(name) if highlight::syntax_theme_exists(&name) => name,
            Some(name) => {
                let known = highlight::syntax_theme_names().join(", ");
                return Err(invalid(format!(
                    "`{SYNTAX_KEY}`: `{name}` is not a syntax theme; one of: {known}"
                )));
            }
            None => base.map(|b| b.syntax.clone()).unwrap_or_default(),
        };
        let mut colors = base.map(|b| b.colors.clone()).unwrap_or_default();
        for (role, value) in table {
            if base.is_some_and(|b| !b.colors.contains_key(&role)) {
                let roles: Vec<&str> = colors.keys().map(String::as_str).collect();
                return Err(invalid(format!(
                    "`{role}` is not a theme role; roles: {SYNTAX_KEY}, {}",
                    roles.join(", ")
                )));
            }
            let color = Color::from_str(&value)
                .map_err(|_| invalid(format!("`{role}`: `{value}` is not a colour")))?;
            colors.insert(role, color);
        }
        let depth = base.map_or(ColorDepth::TrueColor, |b| b.depth);
        Ok(Theme {
            highlighter: Highlighter::new(&syntax, depth),
            colors,
            syntax,
            depth,
        })
    }

    /// The same theme shown at `depth` (`ColorDepth::None`: no colour, no highlighting).
    pub fn with_depth(mut self, depth: ColorDepth) -> Theme {
        self.depth = depth;
        self.highlighter = Highlighter::new(&self.syntax, depth);
        self
    }

    /// Code is highlighted on a background thread while frames show it plain; the runtime
    /// redraws when `highlighter().take_ready()` says something finished.
    pub fn in_background(mut self) -> Theme {
        self.highlighter = self.highlighter.in_background();
        self
    }

    pub fn depth(&self) -> ColorDepth {
        self.depth
    }

    /// The syntect theme this theme highlights code with.
    pub fn syntax(&self) -> &str {
        &self.syntax
    }

    pub fn highlighter(&self) -> &Highlighter {
        &self.highlighter
    }

    /// A role's colour at the terminal's depth (`Color::Reset` with no colour).
    pub fn color(&self, role: &str) -> Color {
        let raw = self.colors.get(role).copied().unwrap_or(Color::Reset);
        self.depth.degrade(raw)
    }

    /// Text in a role: its colour, or without colour the modifier that stands in for it.
    pub fn fg(&self, role: &str) -> Style {
        if self.depth == ColorDepth::None {
            let emphasis = EMPHASIS.iter().find(|(r, _)| *r == role);
            return emphasis.map_or(Style::default(), |(_, m)| Style::default().add_modifier(*m));
        }
        Style::default().fg(self.color(role))
    }

    pub fn bold(&self, role: &str) -> Style {
        self.fg(role).add_modifier(Modifier::BOLD)
    }

    /// The selected row: `selected_bg` behind it, or reversed when there is no colour.
    pub fn selected(&self) -> Style {
        if self.depth == ColorDepth::None {
            return Style::default().add_modifier(Modifier::REVERSED);
        }
        let raw = self
            .colors
            .get("selected_bg")
            .copied()
            .unwrap_or(Color::Reset);
        Style::default().bg(self.depth.degrade_background(raw))
    }
}

#[cfg(test)]
mod tests;
