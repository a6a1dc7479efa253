//! Chat2Graph's published `chat2graph.yml`, unpacked from the pinned tarball in
//! `../shared/chat2graph/` (or `$TOOLSCOPE_SHARED/chat2graph/`) once per test process.
//! Missing, the tests fail with where they looked, unless `TOOLSCOPE_ALLOW_MISSING_SHARED`
//! is set (then they skip it with a notice). The file is never copied into the repository.
//!
//! Included by the TUI's unit tests and the tmux tests (`#[path]`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the tarball's `chat2graph.yml` sits inside it.
const MEMBER: &str = "chat2graph/app/core/sdk/chat2graph.yml";

fn tarball() -> PathBuf {
    let shared = std::env::var_os("TOOLSCOPE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    shared.join("chat2graph/chat2graph-13e9719.tar.gz")
}

/// The unpacked `chat2graph.yml`, or `None` when the tarball is missing and that is allowed.
pub fn chat2graph_yml() -> Option<PathBuf> {
    static PATH: OnceLock<Option<PathBuf>> = OnceLock::new();
    PATH.get_or_init(unpack).clone()
}

fn unpack() -> Option<PathBuf> {
    let tar = tarball();
    if !tar.is_file() {
        assert!(
            std::env::var_os("TOOLSCOPE_ALLOW_MISSING_SHARED").is_some(),
            "Chat2Graph's tarball is not at {} (set TOOLSCOPE_SHARED to the folder holding \
             chat2graph/, or TOOLSCOPE_ALLOW_MISSING_SHARED=1 to skip it)",
            tar.display()
        );
        eprintln!("skipping chat2graph.yml: {} is missing", tar.display());
        return None;
    }
    // Kept for the whole test process (the tests read it by path).
    let dir = tempfile::tempdir().expect("tempdir").keep();
    let out = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(&tar)
        .arg("-C")
        .arg(&dir)
        .arg(MEMBER)
        .output()
        .expect("tar runs");
    assert!(out.status.success(), "tar failed: {out:?}");
    Some(dir.join(MEMBER))
}
