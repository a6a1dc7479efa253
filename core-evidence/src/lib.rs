//! toolscope's core, evidence layer (docs/architecture.md): traces (JSONL, OTLP), their
//! evaluation, steps and replay, fit, and initial scores from tool definitions, over
//! `toolscope-base` and `toolscope-edit`. It knows no tokenizer and no loading (the CLI or
//! `toolscope-core` passes them in).

// The lower crates' modules under their old names, so that `crate::model::..` in these
// modules means what it meant when they were one crate.
use toolscope_base::{bounded, diag, model, recommend, source, text};
use toolscope_edit::{edit, mcp};

pub mod evidence;
