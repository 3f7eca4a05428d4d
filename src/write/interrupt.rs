//! Removing a half-written temporary file when the process is interrupted (SIGINT, SIGTERM,
//! SIGHUP) while it is written.
//!
//! Owns: the signal actions installed for the duration of one write and restored after it.
//! Must not: do anything in the handler beyond what is async-signal-safe (`unlink`, `_exit`).

use std::path::Path;

/// While alive, an interrupting signal removes the file and ends the process with 128 + the
/// signal's number, as the shell reports a process killed by it.
pub struct Guard {
    #[cfg(unix)]
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

#[cfg(unix)]
mod unix {
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// The file to remove, as a C string; null when no write is under way.
    pub static TEMP: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

    pub const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    pub extern "C" fn on_signal(sig: libc::c_int) {
        let path = TEMP.load(Ordering::SeqCst);
        // SAFETY: `unlink` and `_exit` are async-signal-safe; `path` is null or a C string
        // that is never freed (see `guard`).
        unsafe {
            if !path.is_null() {
                libc::unlink(path);
            }
            libc::_exit(128 + sig);
        }
    }
}

/// Installs the actions that remove `path` on an interrupting signal.
#[cfg(unix)]
pub fn guard(path: &Path) -> Guard {
    use std::os::unix::ffi::OsStrExt;
    use std::sync::atomic::Ordering;
    let mut previous = Vec::new();
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return Guard { previous };
    };
    // The path stays allocated for the life of the process (one short string per write), so a
    // handler running on another thread never reads freed memory.
    unix::TEMP.store(c.into_raw(), Ordering::SeqCst);
    for sig in unix::SIGNALS {
        // SAFETY: plain `sigaction` calls with zeroed, then initialised, structures; the handler
        // only calls async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = unix::on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &action, &mut old) == 0 {
                previous.push((sig, old));
            }
        }
    }
    Guard { previous }
}

#[cfg(not(unix))]
pub fn guard(_path: &Path) -> Guard {
    Guard {}
}

impl Drop for Guard {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            for (sig, old) in &self.previous {
                // SAFETY: restores the action `guard` saved for this signal.
                unsafe {
                    libc::sigaction(*sig, old, std::ptr::null_mut());
                }
            }
            unix::TEMP.store(std::ptr::null_mut(), std::sync::atomic::Ordering::SeqCst);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    const CHILD: &str = "CTXRAY_TEST_INTERRUPTED_WRITE";

    /// Run as a child of itself: the child guards a file and is sent SIGTERM.
    #[test]
    fn a_signal_during_the_write_removes_the_temporary_file() {
        if let Some(path) = std::env::var_os(CHILD) {
            let path = std::path::PathBuf::from(path);
            std::fs::write(&path, "half a session").unwrap();
            let _guard = guard(&path);
            // SAFETY: raising a signal in this (child) process.
            unsafe {
                libc::raise(libc::SIGTERM);
            }
            panic!("still running after SIGTERM");
        }
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join(".out.json.ctxray-0.tmp");
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "write::interrupt::tests::a_signal_during_the_write_removes_the_temporary_file",
            ])
            .env(CHILD, &tmp)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(128 + libc::SIGTERM));
        assert!(!tmp.exists());
    }
}
