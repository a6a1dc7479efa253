//! toolscope's core, evidence layer (docs/architecture.md): traces (JSONL, OTLP), their
//! evaluation, steps and replay, fit, and initial scores from tool definitions, over
//! `toolscope-base` and `toolscope-edit`. It knows no tokenizer and no loading (the CLI or
//! `toolscope-core` passes them in).

// Empty in a test build: these modules' unit tests are compiled and run in
// toolscope-core's test build (core/src/lib.rs), where a test may load a toolkit through
// the layers above. (`test = false` keeps `cargo test` from building this crate's tests;
// `--all-targets` builds them anyway.)
#![cfg(not(test))]

// The lower crates' modules under their old names, so that `crate::model::..` in these
// modules means what it meant when they were one crate.
use toolscope_base::{bounded, diag, model, recommend, source, text};
use toolscope_edit::{edit, mcp};

pub mod evidence;
