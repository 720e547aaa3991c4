//! The file system side: atomic replacement, the one-writer lock (ours and the TypeScript
//! kit's), lengths and cuts.

use crate::{files, Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Writes `bytes` to `dir/name` through a temporary file, fsync and rename, so the file is
/// either the old or the new one after a crash.
pub(crate) fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    let path = dir.join(name);
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        std::io::Write::write_all(&mut f, bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        File::open(dir)?.sync_all()
    };
    write().map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// Takes the exclusive writer lock on `dir/lock`, without waiting.
pub(crate) fn lock_dir(dir: &Path) -> Result<File> {
    let path = dir.join(files::LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    // SAFETY: flock on a descriptor this function owns; no memory is involved.
    #[allow(unsafe_code)]
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let err = std::io::Error::last_os_error();
        return Err(match err.raw_os_error() {
            Some(libc::EWOULDBLOCK) => Error::Locked(dir.to_path_buf()),
            _ => Error::io(format!("locking {}", path.display()), err),
        });
    }
    // A TypeScript writer (js/mmr-lock) holds `lock.pid` instead, and checks for this flock
    // after creating it; checking for its file after taking the flock means that of two
    // writers racing, at least one sees the other.
    if kit_writer_holds(dir) {
        return Err(Error::Locked(dir.to_path_buf()));
    }
    Ok(file)
}

/// Whether `lock.pid` names a writer that may be alive: a live process of this host, or
/// anything this process cannot judge (another host, an unreadable or malformed file). A
/// process that died leaves a stale file, which the kit's next writer takes over.
fn kit_writer_holds(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join(files::KIT_LOCK)) else {
        return false;
    };
    let mut words = text.split_whitespace();
    let (Some(pid), Some(host)) = (words.next(), words.next()) else {
        return true;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return true;
    };
    let ours = std::fs::read_to_string("/proc/sys/kernel/hostname");
    match ours {
        Ok(ours) if ours.trim() == host => Path::new(&format!("/proc/{pid}")).exists(),
        _ => true,
    }
}

pub(crate) fn not_a_store(dir: &Path) -> Error {
    Error::NotAStore {
        dir: dir.to_path_buf(),
        why: if !dir.exists() {
            "no such directory".into()
        } else if !dir.is_dir() {
            "not a directory".into()
        } else {
            "no meta file".into()
        },
    }
}

pub(crate) fn file_len(file: &File, name: &str) -> Result<u64> {
    file.metadata()
        .map(|m| m.len())
        .map_err(|e| Error::io(format!("reading the length of {name}"), e))
}

pub(crate) fn truncate(file: &File, len: u64, name: &str) -> Result<()> {
    file.set_len(len)
        .and_then(|_| file.sync_all())
        .map_err(|e| Error::io(format!("cutting {name} back to {len} bytes"), e))
}
