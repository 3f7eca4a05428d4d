//! Theme choice, parsing, depths and the no-colour emphasis.

use super::*;

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn luminance((r, g, b): (u8, u8, u8)) -> u32 {
    (2126 * u32::from(r) + 7152 * u32::from(g) + 722 * u32::from(b)) / 10_000
}

#[test]
fn every_bundled_theme_parses_and_names_every_role() {
    let dark = Theme::bundled("dark").unwrap();
    for (name, _) in BUNDLED {
        let theme = Theme::bundled(name).unwrap();
        assert_eq!(theme.colors.len(), dark.colors.len(), "{name}");
        for role in dark.colors.keys() {
            assert!(theme.colors.contains_key(role), "{name} lacks {role}");
        }
        assert!(theme.highlighter().is_on(), "{name} names a syntax theme");
    }
    assert!(Theme::bundled("neon").is_err());
    let err = Theme::parse("user = \"not-a-colour\"", "my.toml", Some(&dark)).unwrap_err();
    assert!(err.to_string().starts_with("my.toml: `user`"), "{err}");
}

#[test]
fn each_theme_highlights_with_a_syntax_theme_for_its_background() {
    let background = |name: &str| {
        let theme = Theme::bundled(name).unwrap();
        luminance(highlight::syntax_theme_background(theme.syntax()).unwrap())
    };
    assert!(background("dark") < 64, "dark");
    assert!(background("high-contrast") < 16, "high-contrast");
    assert!(background("light") > 200, "light");
}

#[test]
fn each_theme_tells_json_keys_from_string_values() {
    use crate::tui::highlight::Kind;
    for (name, _) in BUNDLED {
        let theme = Theme::bundled(name).unwrap();
        let shown = theme
            .highlighter()
            .show(r#"{"path": "src"}"#, Kind::Json, Style::default(), 9);
        let colour_of = |word: &str| {
            let spans = &shown.lines[1].spans;
            spans.iter().find(|s| s.content == word).map(|s| s.style.fg)
        };
        let (key, value) = (colour_of("path"), colour_of("src"));
        assert!(
            key.is_some() && value.is_some(),
            "{name}: {:?}",
            shown.lines[1]
        );
        assert_ne!(key, value, "{name}");
    }
}

#[test]
fn a_user_theme_file_is_checked_key_by_key() {
    let dark = Theme::dark();
    let err = |text: &str| {
        Theme::parse(text, "t.toml", Some(&dark))
            .unwrap_err()
            .to_string()
    };
    let unknown = err("usr = \"red\"");
    assert!(
        unknown.starts_with("t.toml: `usr` is not a theme role; roles: syntax, ")
            && unknown.contains(" assistant,"),
        "{unknown}"
    );
    assert!(err("syntax = \"Monokai\"").contains("one of: base16-ocean.dark,"));
    assert!(
        err("user = 3").starts_with("t.toml: line 1, column 8: "),
        "{}",
        err("user = 3")
    );
    let ok = Theme::parse(
        "syntax = \"Solarized (dark)\"\nuser = \"#123456\"",
        "t.toml",
        Some(&dark),
    );
    let ok = ok.unwrap();
    assert_eq!(
        (ok.syntax(), ok.color("user")),
        ("Solarized (dark)", Color::Rgb(0x12, 0x34, 0x56))
    );
    assert_eq!(
        ok.color("tool"),
        dark.color("tool"),
        "the rest comes from the base"
    );
}

#[test]
fn the_flag_wins_over_the_config_file_which_wins_over_the_default() {
    let load = |flag: Option<&str>, dir: Option<&Path>| {
        Theme::load_with(flag, dir, ColorDepth::TrueColor)
            .unwrap()
            .syntax()
            .to_string()
    };
    let empty = dir_with(&[]);
    assert_eq!(load(None, None), "dark.tmTheme");
    assert_eq!(load(None, Some(empty.path())), "dark.tmTheme");
    let light = dir_with(&[("config.toml", "theme = \"light\"\n")]);
    assert_eq!(load(None, Some(light.path())), "light.tmTheme");
    assert_eq!(
        load(Some("high-contrast"), Some(light.path())),
        "high-contrast.tmTheme"
    );
    assert_eq!(load(Some("dark"), Some(light.path())), "dark.tmTheme");
}

#[test]
fn a_user_theme_is_read_over_the_bundled_one_of_its_name_or_over_dark() {
    let dir = dir_with(&[
        ("config.toml", "theme = \"mine\"\n"),
        ("themes/mine.toml", "user = \"#010203\"\n"),
        ("themes/light.toml", "tool = \"#040506\"\n"),
    ]);
    let mine = Theme::load_with(None, Some(dir.path()), ColorDepth::TrueColor).unwrap();
    assert_eq!(mine.color("user"), Color::Rgb(1, 2, 3));
    assert_eq!(mine.color("assistant"), Theme::dark().color("assistant"));
    let light = Theme::load_with(Some("light"), Some(dir.path()), ColorDepth::TrueColor).unwrap();
    assert_eq!(light.color("tool"), Color::Rgb(4, 5, 6));
    assert_eq!(light.syntax(), "light.tmTheme");
    assert_eq!(
        light.color("user"),
        Theme::bundled("light").unwrap().color("user")
    );
}

#[test]
fn bad_names_and_files_are_errors_that_say_where() {
    let dir = dir_with(&[("themes/broken.toml", "user = \n")]);
    let err = |flag: &str| {
        Theme::load_with(Some(flag), Some(dir.path()), ColorDepth::TrueColor)
            .unwrap_err()
            .to_string()
    };
    let unknown = err("neon");
    assert!(unknown.starts_with("unknown theme `neon`; bundled themes: dark, light, high-contrast; a user theme would be "), "{unknown}");
    assert!(
        unknown.ends_with(&format!(
            "{}",
            Path::new("themes").join("neon.toml").display()
        )),
        "{unknown}"
    );
    let broken = dir.path().join("themes").join("broken.toml");
    assert!(
        err("broken").starts_with(&format!("{}: line 1", broken.display())),
        "{}",
        err("broken")
    );
    std::fs::write(dir.path().join("config.toml"), "theme = [").unwrap();
    let bad_config = err("dark");
    let config_file = dir.path().join("config.toml");
    assert!(
        bad_config.starts_with(&format!("{}: line 1", config_file.display())),
        "{bad_config}"
    );
}

#[test]
fn without_colour_meaning_is_carried_by_modifiers() {
    let theme = Theme::dark().with_depth(ColorDepth::None);
    for (role, _) in EMPHASIS.iter().chain([("user", Modifier::empty())].iter()) {
        assert_eq!(theme.fg(role).fg, None, "{role}");
        assert_eq!(theme.color(role), Color::Reset, "{role}");
    }
    assert!(theme
        .fg("cut")
        .add_modifier
        .contains(Modifier::BOLD | Modifier::UNDERLINED));
    assert!(theme
        .fg("group_broken")
        .add_modifier
        .contains(Modifier::UNDERLINED));
    assert!(theme.fg("dim").add_modifier.contains(Modifier::DIM));
    assert_eq!(theme.fg("user"), Style::default());
    assert_eq!(
        theme.selected(),
        Style::default().add_modifier(Modifier::REVERSED)
    );
    assert!(!theme.highlighter().is_on());
}

#[test]
fn roles_degrade_to_the_terminals_depth() {
    for (name, _) in BUNDLED {
        let at16 = Theme::bundled(name).unwrap().with_depth(ColorDepth::Ansi16);
        let at256 = Theme::bundled(name)
            .unwrap()
            .with_depth(ColorDepth::Ansi256);
        for role in at16.colors.keys() {
            let c16 = at16.color(role);
            assert!(
                !matches!(c16, Color::Rgb(..) | Color::Indexed(_)),
                "{name} {role}: {c16:?}"
            );
            assert!(
                !matches!(at256.color(role), Color::Rgb(..)),
                "{name} {role}"
            );
        }
        assert!(
            !matches!(at16.selected().bg, Some(Color::Black | Color::White)),
            "{name}"
        );
    }
    let light = Theme::bundled("light").unwrap();
    assert_eq!(light.color("user"), Color::Rgb(0x2d, 0x7a, 0x1f));
    assert_eq!(
        light.with_depth(ColorDepth::Ansi16).color("user"),
        Color::Green
    );
}
