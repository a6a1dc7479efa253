//! toolscope's core, edit layer (docs/architecture.md): the edit vocabulary, MCP servers,
//! diffs, lint, file watching, generated toolkits, the exports and the file formats, over
//! `toolscope-base`. It names neither the evidence nor loading, the applier or the session
//! (the crates above it).

// The base crate's modules under their old names, so that `crate::model::..` in these
// modules means what it meant when they were one crate.
use toolscope_base::{bounded, diag, layout, model, recommend, source, text};

pub mod diff;
pub mod edit;
pub mod export;
pub mod formats;
pub mod generate;
pub mod lint;
pub mod mcp;
pub mod watch;

// A toolkit's text read by its format, for this crate's unit tests (loading itself is
// toolscope-core's).
#[cfg(test)]
mod testing;
