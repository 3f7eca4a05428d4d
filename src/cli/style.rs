//! Colours for text output: a few ANSI styles, off when asked, when `NO_COLOR` is set, or when
//! stdout is not a terminal.

use std::io::IsTerminal;

pub fn use_color(no_color: bool) -> bool {
    !no_color && std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub on: bool,
}

impl Style {
    pub fn paint(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
    pub fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
    pub fn role(&self, role: &str, t: &str) -> String {
        let code = match role {
            "system" | "developer" => "35",
            "user" => "32",
            "assistant" => "36",
            "tool" => "33",
            _ => "2",
        };
        self.paint(code, t)
    }
    pub fn severity(&self, sev: &str, t: &str) -> String {
        let code = match sev {
            "error" => "1;31",
            "warn" => "33",
            _ => "34",
        };
        self.paint(code, t)
    }
}
