//! The non-regular files the hostile-input tests read and write, made at run time: an endless
//! one (a FIFO a thread fills with zero bytes until its reader goes) and a character device (the
//! follower side of a pseudo-terminal the test opens). No directory of the system is named.

use std::io::Write;
use std::path::{Path, PathBuf};

/// An endless FIFO at `path`: every open for reading is fed zero bytes until it is closed.
pub fn endless(path: &Path) -> PathBuf {
    let c = std::ffi::CString::new(path.display().to_string()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let fifo = path.to_path_buf();
    std::thread::spawn(move || {
        let chunk = vec![0u8; 1 << 16];
        // Each open waits for a reader; a write fails once the reader closes its end.
        while let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&fifo) {
            while w.write_all(&chunk).is_ok() {}
        }
    });
    path.to_path_buf()
}

/// A character device: the follower side of a pseudo-terminal, open while this lives.
pub struct CharDevice {
    /// The leader side, held open so that the follower stays.
    _leader: std::fs::File,
    path: PathBuf,
}

impl CharDevice {
    pub fn open() -> CharDevice {
        use std::os::fd::FromRawFd;
        // SAFETY: plain calls on the descriptor posix_openpt returns; ptsname_r writes at most
        // `name.len()` bytes, NUL included.
        unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(fd >= 0, "posix_openpt");
            assert_eq!(libc::grantpt(fd), 0, "grantpt");
            assert_eq!(libc::unlockpt(fd), 0, "unlockpt");
            let mut name = [0 as libc::c_char; 256];
            assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
            let path = std::ffi::CStr::from_ptr(name.as_ptr())
                .to_string_lossy()
                .into_owned();
            CharDevice {
                _leader: std::fs::File::from_raw_fd(fd),
                path: PathBuf::from(path),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// [`CharDevice::path`] as a string, for an argument list.
    pub fn arg(&self) -> String {
        self.path.display().to_string()
    }
}
