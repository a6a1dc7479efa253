//! Every file a command or a session reads, which no output may replace (SPEC 6). The list
//! is made here, once for the CLI and the TUI; the check itself is
//! [`crate::source::save::write_output`]'s, by (device, inode) after following links, and
//! `--force` (`:export!`) never overrides it.

use std::path::{Path, PathBuf};

use crate::mcp::cache::sidecar_path;
use crate::session::recovery;

/// The files an output must not replace: the paths opened as given (`opened`) and the
/// toolkit files found in them (`files`), each toolkit file's MCP sidecar (`FILE.mcp.json`),
/// the recovery file of the opened set in `recovery_dir`, and the other inputs (`others`:
/// trace, definition and baseline files).
pub fn protected(
    opened: &[PathBuf],
    files: &[PathBuf],
    others: &[PathBuf],
    recovery_dir: Option<&Path>,
) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = opened.iter().chain(files).cloned().collect();
    all.extend(files.iter().chain(opened).map(|f| sidecar_path(f)));
    all.extend(recovery::path_for(recovery_dir, opened));
    all.extend(others.iter().cloned());
    all
}
