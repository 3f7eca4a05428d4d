//! How much ctxray reads at most, and reading files within those bounds.
//!
//! Owns: the input limits (bytes from a source that is not a regular file, one JSONL line, a
//! configuration file), their defaults, the sizes the command line gives them (`1G`, `512M`,
//! plain bytes) and the one-line errors that name the limit and the flag raising it. A regular
//! file has a known size and is read whole, whatever its size; a file beside a session (an
//! event file, a subagent's file) is read only when it is a regular file. Must not: parse
//! sessions or know about commands.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Default for `--max-input`: bytes read from stdin, a pipe or a device.
pub const DEFAULT_INPUT: u64 = 2 << 30;
/// Default for `--max-line`: bytes of one JSONL line.
pub const DEFAULT_LINE: u64 = 512 << 20;
/// Default for `--max-config`: bytes of a configuration file.
pub const DEFAULT_CONFIG: u64 = 1 << 20;

/// The limits one run reads within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes read from a source that is not a regular file.
    pub input: u64,
    /// Bytes of one JSONL line (a whole one-line document is not a line).
    pub line: u64,
    /// Bytes of a configuration file (`--config`, `models.toml`, `config.toml`, a theme).
    pub config: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            input: DEFAULT_INPUT,
            line: DEFAULT_LINE,
            config: DEFAULT_CONFIG,
        }
    }
}

/// A limit reached: the one-line reason, without the file name.
pub fn input_exceeded(limit: u64) -> String {
    format!(
        "more than {} read from a non-regular file (raise with --max-input SIZE)",
        show(limit)
    )
}

/// A JSONL line over the limit: the one-line reason, without the file name and line.
pub fn line_exceeded(limit: u64) -> String {
    format!(
        "a line longer than {} (raise with --max-line SIZE)",
        show(limit)
    )
}

/// A configuration file over the limit: the one-line reason, without the file name.
pub fn config_exceeded(limit: u64) -> String {
    format!(
        "a configuration file larger than {} (raise with --max-config SIZE)",
        show(limit)
    )
}

/// A size as given on the command line: plain bytes, or a number with `K`, `M`, `G` or `T`
/// (powers of 1024; `KiB`, `MB` and lower case are read the same). At least one byte.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("`{s}` is not a size (plain bytes, or a number with K, M, G or T)");
    let t = s.trim().replace('_', "");
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_uppercase();
    let unit = unit.trim_end_matches('B').trim_end_matches('I');
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(bad()),
    };
    let bytes = n.checked_mul(1u64 << shift).ok_or_else(bad)?;
    if bytes == 0 {
        return Err(format!("`{s}`: a limit is at least one byte"));
    }
    Ok(bytes)
}

/// A size in the largest unit that divides it (`2 GiB`, `512 MiB`, `1000 bytes`).
pub fn show(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

/// Why a bounded read failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    /// More bytes than the limit: the message names the limit and its flag.
    #[error("{0}")]
    Exceeded(String),
}

/// Everything `reader` gives, or `Exceeded(input_exceeded(limit))` as soon as it gives more
/// than `limit` bytes. The buffer doubles as it fills but never holds more than `limit`
/// bytes, so reading up to the limit takes the limit, not twice it.
pub fn read_at_most(mut reader: impl Read, limit: u64) -> Result<Vec<u8>, ReadError> {
    let limit_len = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if n > limit_len - bytes.len() {
            return Err(ReadError::Exceeded(input_exceeded(limit)));
        }
        if bytes.capacity() - bytes.len() < n {
            let grown = (bytes.capacity() * 2).max(READ_CHUNK).min(limit_len);
            bytes.reserve_exact(grown.max(bytes.len() + n) - bytes.len());
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// Bytes asked of a reader at a time.
const READ_CHUNK: usize = 64 << 10;

/// A session source: a regular file whole, anything else (a FIFO, a device, a socket) up to
/// `limits.input` bytes. The file is opened once and its type read from the open file.
pub fn read_source(path: &Path, limits: &Limits) -> Result<Vec<u8>, ReadError> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() {
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    read_at_most(file, limits.input)
}

/// A file read beside a session (an event file of a conversation directory, a subagent's
/// file, a settings file): only a regular file is read; a device, a FIFO or a socket is
/// refused (`InvalidInput`, naming what it is) without waiting on it.
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let len = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens `path` for reading only if it is a regular file. The type is checked before opening
/// (opening a FIFO would wait for a writer) and again on the open file (the path may have
/// been replaced in between; the open does not wait, on Unix).
pub fn open_regular(path: &Path) -> io::Result<File> {
    refuse_irregular(&std::fs::metadata(path)?)?;
    let file = open_nonblocking(path)?;
    refuse_irregular(&file.metadata()?)?;
    Ok(file)
}

/// A configuration file's text, of at most `limit` bytes whatever the file is (`--config
/// <(…)` is a pipe), UTF-8.
pub fn read_config(path: &Path, limit: u64) -> Result<String, ReadError> {
    let file = File::open(path)?;
    let bytes = read_at_most(file, limit).map_err(|e| match e {
        ReadError::Exceeded(_) => ReadError::Exceeded(config_exceeded(limit)),
        other => other,
    })?;
    String::from_utf8(bytes)
        .map_err(|e| ReadError::Io(io::Error::new(io::ErrorKind::InvalidData, e)))
}

fn refuse_irregular(meta: &Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file ({})", kind(meta)),
    ))
}

/// What a file that is not a regular one is, in a few words.
pub fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units_and_show_back() {
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1_000"), Ok(1000));
        for bad in ["", "0", "G", "1X", "-1", "1.5G", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(show(DEFAULT_INPUT), "2 GiB");
        assert_eq!(show(DEFAULT_LINE), "512 MiB");
        assert_eq!(show(1000), "1000 bytes");
    }

    /// Reading up to the limit holds no more than the limit: 2 GiB from a pipe must not
    /// take 4 GiB of buffer.
    #[test]
    fn reading_up_to_the_limit_holds_no_more_than_the_limit() {
        let limit = (3 << 20) + 17;
        let bytes = read_at_most(io::repeat(7).take(limit), limit);
        let bytes = bytes.ok().unwrap_or_default();
        assert_eq!(bytes.len() as u64, limit);
        assert!(bytes.capacity() as u64 <= limit, "{}", bytes.capacity());
    }

    #[test]
    fn a_reader_past_the_limit_is_refused_after_limit_plus_one_bytes() {
        let ok = read_at_most(&b"12345"[..], 5);
        assert_eq!(ok.ok(), Some(b"12345".to_vec()));
        let endless = io::repeat(0);
        match read_at_most(endless, 1 << 20) {
            Err(ReadError::Exceeded(why)) => {
                assert_eq!(
                    why,
                    "more than 1 MiB read from a non-regular file (raise with --max-input SIZE)"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}
