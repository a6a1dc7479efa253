//! Chat2Graph's published `chat2graph.yml`, unpacked from the pinned tarball in
//! `../shared/chat2graph/` (or `$TOOLSCOPE_SHARED/chat2graph/`) once per test process.
//! Missing (a plain clone has no `../shared`), the tests that need it skip it with one line
//! saying what is missing and how to provide it; `TOOLSCOPE_REQUIRE_SHARED=1` (which
//! `.ci/run` sets) makes that a failure instead, so CI never skips it. The file is never
//! copied into the repository.
//!
//! Included by the TUI's unit tests (`#[path]`) and shared by the tmux tests.
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
        let missing = format!(
            "Chat2Graph's tarball is not at {} (put the folder holding chat2graph/ beside the \
             repository as ../shared, or set TOOLSCOPE_SHARED to it)",
            tar.display()
        );
        assert!(
            std::env::var_os("TOOLSCOPE_REQUIRE_SHARED").is_none(),
            "{missing}; TOOLSCOPE_REQUIRE_SHARED is set, so it is required"
        );
        eprintln!("skipping what needs chat2graph.yml: {missing}");
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
