//! Opening a file that must be a regular file of bounded size, for every reader of files
//! a user or another program may have put anything in place of (toolkits, MCP sidecar
//! caches, trace files, the recovery file): opened without blocking (a FIFO cannot hang
//! the open), checked with `fstat` on what was opened (no window between a check and the
//! open), and read no further than the limit even if the file grows meanwhile.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum Refused {
    /// No such file.
    Missing,
    /// A folder.
    Folder,
    /// A FIFO, socket or device.
    NotRegular,
    /// A symbolic link, where links are not followed.
    Link,
    /// Its size, over the limit.
    TooLarge {
        size: u64,
        max: u64,
    },
    Io(std::io::Error),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Missing => f.write_str("no such file"),
            Refused::Folder => f.write_str("is a directory"),
            Refused::NotRegular => {
                f.write_str("not a regular file (a FIFO, socket or device); not read")
            }
            Refused::Link => f.write_str("a symbolic link; not read"),
            Refused::TooLarge { size, max } => {
                write!(f, "{size} bytes, over the limit of {max} bytes; not read")
            }
            Refused::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Whether links are followed when opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    Follow,
    /// Refuse a symbolic link (files in a folder only toolscope writes).
    Refuse,
}

/// Opens `path` for reading if it is a regular file of at most `max` bytes; returns it with
/// its size.
pub fn open(path: &Path, max: u64, links: Links) -> Result<(File, u64), Refused> {
    let file = open_nonblocking(path, links).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Refused::Missing,
        _ if is_loop(&e) && links == Links::Refuse => Refused::Link,
        _ => Refused::Io(e),
    })?;
    let meta = file.metadata().map_err(Refused::Io)?;
    if meta.is_dir() {
        return Err(Refused::Folder);
    }
    if !meta.is_file() {
        return Err(Refused::NotRegular);
    }
    if meta.len() > max {
        return Err(Refused::TooLarge {
            size: meta.len(),
            max,
        });
    }
    Ok((file, meta.len()))
}

/// The bytes of `path` (see [`open`]), never more than `max`.
pub fn read(path: &Path, max: u64, links: Links) -> Result<Vec<u8>, Refused> {
    let (file, size) = open(path, max, links)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    if bytes.len() as u64 > max {
        return Err(Refused::TooLarge {
            size: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path, links: Links) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = match links {
        Links::Follow => libc::O_NONBLOCK,
        Links::Refuse => libc::O_NONBLOCK | libc::O_NOFOLLOW,
    };
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path, _: Links) -> std::io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn is_loop(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

#[cfg(not(unix))]
fn is_loop(_: &std::io::Error) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("f");
        std::fs::write(&p, "12345").expect("write");
        assert_eq!(read(&p, 5, Links::Follow).expect("read"), b"12345");
        assert!(matches!(
            read(&p, 4, Links::Follow),
            Err(Refused::TooLarge { size: 5, max: 4 })
        ));
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&p, &link).expect("symlink");
        assert!(read(&link, 5, Links::Follow).is_ok());
        assert!(matches!(read(&link, 5, Links::Refuse), Err(Refused::Link)));
        assert!(matches!(
            read(dir.path(), 5, Links::Follow),
            Err(Refused::Folder)
        ));
        assert!(matches!(
            read(Path::new("/dev/zero"), 5, Links::Follow),
            Err(Refused::NotRegular)
        ));
        let fifo = dir.path().join("p");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .expect("mkfifo")
                .success()
        );
        assert!(matches!(
            read(&fifo, 5, Links::Follow),
            Err(Refused::NotRegular)
        ));
        assert!(matches!(
            read(&dir.path().join("none"), 5, Links::Follow),
            Err(Refused::Missing)
        ));
    }
}
