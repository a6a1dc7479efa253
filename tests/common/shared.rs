//! The shared inputs beside the repository (`../shared`: Chat2Graph's pinned source):
//! `$TOOLSCOPE_SHARED`, else `<repo>/../shared`. Missing, a test fails with a clear message,
//! unless `TOOLSCOPE_ALLOW_MISSING_SHARED` is set (then it says so and skips).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The shared folder, or `None` (with a note) when it is missing and that is allowed.
pub fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLSCOPE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if dir.join("chat2graph").is_dir() {
        return Some(dir);
    }
    if std::env::var_os("TOOLSCOPE_ALLOW_MISSING_SHARED").is_some() {
        eprintln!(
            "note: {} is missing; skipped (TOOLSCOPE_ALLOW_MISSING_SHARED)",
            dir.display()
        );
        return None;
    }
    panic!(
        "the shared inputs are not at {}: set TOOLSCOPE_SHARED to the folder holding \
         chat2graph/chat2graph-13e9719.tar.gz (or TOOLSCOPE_ALLOW_MISSING_SHARED=1 to skip)",
        dir.display()
    );
}

/// Chat2Graph's published `app/core/sdk/chat2graph.yml`, unpacked from the pinned tarball
/// into `into`.
pub fn chat2graph_yml(into: &Path) -> Option<PathBuf> {
    let tarball = shared()?.join("chat2graph/chat2graph-13e9719.tar.gz");
    let status = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(into)
        .arg("chat2graph/app/core/sdk/chat2graph.yml")
        .status()
        .expect("tar runs");
    assert!(status.success(), "cannot unpack {}", tarball.display());
    Some(into.join("chat2graph/app/core/sdk/chat2graph.yml"))
}
