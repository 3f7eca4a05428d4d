//! Where `-o OUT` may write, and the temporary file beside it.
//!
//! Owns: telling what OUT is (nothing yet, a regular file, or something that is not a file: a
//! symbolic link, a directory, a FIFO, a socket, a device), refusing the last kind even with
//! `--force`, and creating the temporary file exclusively (never following a link planted at
//! its name) under a name no other process predicts. Must not: write the content or rename.

use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Path, PathBuf};

/// What is at an output path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Nothing: the file will be created.
    New,
    /// A regular file: replaced only with `--force`.
    Regular,
    /// Anything else, named for the message: never written.
    NotAFile(&'static str),
}

/// What is at `path`, without following a symbolic link at its last component.
pub fn inspect(path: &Path) -> io::Result<Target> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::New),
        Err(e) => return Err(e),
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(Target::Regular);
    }
    Ok(Target::NotAFile(describe(ft)))
}

fn describe(ft: std::fs::FileType) -> &'static str {
    if ft.is_symlink() {
        return "symbolic link";
    }
    if ft.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "FIFO (named pipe)";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_char_device() {
            return "character device";
        }
        if ft.is_block_device() {
            return "block device";
        }
    }
    "special file"
}

/// Creates a new temporary file in `dir` for the output named `name`: exclusively (an existing
/// file or link at the name is an error, never opened), with a name drawn from the process's
/// random hasher seed, the process id, the time and a counter.
pub fn create_temp(dir: &Path, name: &str) -> io::Result<(File, PathBuf)> {
    // Keep the name within the usual 255-byte limit whatever the output's name.
    let stem: String = name.chars().take(96).collect();
    let mut last = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(".{stem}.ctxray-{:016x}.tmp", unique(attempt)));
        match open_new(&tmp) {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

fn open_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

fn unique(attempt: u32) -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_new_regular_and_what_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        assert_eq!(inspect(&file).unwrap(), Target::New);
        std::fs::write(&file, "x").unwrap();
        assert_eq!(inspect(&file).unwrap(), Target::Regular);
        assert_eq!(inspect(dir.path()).unwrap(), Target::NotAFile("directory"));
        #[cfg(unix)]
        {
            let link = dir.path().join("l");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert_eq!(inspect(&link).unwrap(), Target::NotAFile("symbolic link"));
            // Made in the test's own directory: no place of the machine is named.
            let socket = dir.path().join("s");
            let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
            assert_eq!(inspect(&socket).unwrap(), Target::NotAFile("socket"));
            let fifo = dir.path().join("p");
            let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: `name` is a NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            assert_eq!(
                inspect(&fifo).unwrap(),
                Target::NotAFile("FIFO (named pipe)")
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_temporary_file_never_follows_a_link_at_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let planted = dir.path().join("planted");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let err = open_new(&planted).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        let (_, a) = create_temp(dir.path(), "out.json").unwrap();
        let (_, b) = create_temp(dir.path(), "out.json").unwrap();
        assert_ne!(a, b);
        assert!(a
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".out.json.ctxray-"));
    }
}
