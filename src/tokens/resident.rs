//! Giving back the pages of the serialized tokenizer tables once they are deserialized.
//!
//! Each encoding's tables are embedded in the executable (16 MB for o200k, see the build
//! script) and deserialized on first use. The embedded bytes are never read again, but the pages
//! read stay resident, counted in the process's memory for its whole life: half of the memory
//! a small session costs. After a first load, the executable's read-only file-backed mappings
//! are advised out (`MADV_PAGEOUT`). The kernel drops the clean pages no other process maps;
//! the ones read again later (code, other constants) come back from the page cache. Nothing
//! written is ever dropped: writable mappings are left alone, and pageout never discards a
//! page it would have to write. Linux only; elsewhere, and on kernels without the advice, a
//! no-op.
//!
//! Must not: fail or print. It is advice.

/// Advises the kernel to reclaim the executable's read-only file-backed pages.
pub fn release_embedded_tables() {
    #[cfg(target_os = "linux")]
    linux::release();
}

#[cfg(target_os = "linux")]
mod linux {
    use std::os::unix::fs::MetadataExt;

    pub fn release() {
        let Ok(exe) = std::fs::metadata(crate::procfs::path("self/exe")) else {
            return;
        };
        let Ok(maps) = std::fs::read_to_string(crate::procfs::path("self/maps")) else {
            return;
        };
        for (start, end) in read_only_of(&maps, exe.ino()) {
            // SAFETY: the range is a whole mapping of this process, read-only and backed by
            // the executable's file; `MADV_PAGEOUT` only reclaims pages, which later reads fault
            // back in from the file, and never changes what the mapping holds.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_PAGEOUT);
            }
        }
    }

    /// The address ranges of the mappings of the file with inode `ino` that are not writable.
    pub(super) fn read_only_of(maps: &str, ino: u64) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for line in maps.lines() {
            let mut fields = line.split_ascii_whitespace();
            let (Some(range), Some(perms), Some(_offset), Some(_dev), Some(inode)) = (
                fields.next(),
                fields.next(),
                fields.next(),
                fields.next(),
                fields.next(),
            ) else {
                continue;
            };
            if perms.contains('w') || inode.parse::<u64>().ok() != Some(ino) || ino == 0 {
                continue;
            }
            let Some((a, b)) = range.split_once('-') else {
                continue;
            };
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                if a < b {
                    out.push((a, b));
                }
            }
        }
        out
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::linux::read_only_of;

    #[test]
    fn only_the_file_s_read_only_mappings_are_chosen() {
        let maps = "\
55d0a0000000-55d0a0100000 r--p 00000000 fd:01 4242 ctxray
55d0a0100000-55d0a0200000 r-xp 00100000 fd:01 4242 ctxray
55d0a0200000-55d0a0300000 r--p 00200000 fd:01 4242 ctxray
55d0a0300000-55d0a0301000 rw-p 00300000 fd:01 4242 ctxray
55d0a0301000-55d0a0400000 rw-p 00000000 00:00 0 [heap]
7f0000000000-7f0000100000 r--p 00000000 fd:01 777 libc.so.6
7f0000200000-7f0000300000 ---p 00000000 00:00 0
garbage line
";
        assert_eq!(
            read_only_of(maps, 4242),
            vec![
                (0x55d0a0000000, 0x55d0a0100000),
                (0x55d0a0100000, 0x55d0a0200000),
                (0x55d0a0200000, 0x55d0a0300000),
            ]
        );
        assert!(read_only_of(maps, 0).is_empty());
    }

    #[test]
    fn releasing_keeps_the_tokenizer_working() {
        let counter = crate::tokens::Counter::new(crate::tokens::Encoding::O200kBase);
        let before = counter.count("hello world, the tables were paged out");
        super::release_embedded_tables();
        assert_eq!(
            counter.count("hello world, the tables were paged out"),
            before
        );
    }
}
