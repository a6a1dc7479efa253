//! toolscope's core, edit layer (docs/architecture.md): the edit vocabulary, MCP servers,
//! diffs, lint, file watching, generated toolkits, the exports and the file formats, over
//! `toolscope-base`. It names neither the evidence nor loading, the applier or the session
//! (the crates above it).

// Empty in a test build: these modules' unit tests are compiled and run in
// toolscope-core's test build (core/src/lib.rs), where a test may load a toolkit through
// the layers above. (`test = false` keeps `cargo test` from building this crate's tests;
// `--all-targets` builds them anyway.)
#![cfg(not(test))]

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
