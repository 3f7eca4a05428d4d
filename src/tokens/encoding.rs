//! The BPE encodings ctxray counts with, and the counter over them.
//!
//! Owns: choosing an encoding by name and counting a text's tokens exactly as tiktoken's
//! `encode_ordinary` does (special-token text is counted as ordinary text).

use std::fmt;
use std::str::FromStr;

use tiktoken_rs::CoreBPE;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    O200kBase,
    Cl100kBase,
}

impl Encoding {
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    fn bpe(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Encoding, String> {
        match s {
            "o200k_base" | "o200k" => Ok(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Ok(Encoding::Cl100kBase),
            _ => Err(format!(
                "unknown tokenizer `{s}`; expected o200k_base or cl100k_base"
            )),
        }
    }
}

/// Counts tokens of texts with one encoding. Cheap to copy; safe to share across threads.
#[derive(Clone, Copy)]
pub struct Counter {
    encoding: Encoding,
    bpe: &'static CoreBPE,
}

impl fmt::Debug for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counter")
            .field("encoding", &self.encoding)
            .finish()
    }
}

impl Counter {
    pub fn new(encoding: Encoding) -> Counter {
        Counter {
            encoding,
            bpe: encoding.bpe(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Tokens in `text`, as tiktoken's `encode_ordinary` counts them.
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.bpe.encode_ordinary(text).len()
    }
}
