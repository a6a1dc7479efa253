//! toolscope: explore, tune and edit the toolkit graphs LLM agents use to pick their next
//! action and tool.
//!
//! The core (`model`, `recommend`, `source`, `lint`, `export`) knows nothing of terminals;
//! the CLI (`cli`) and the TUI (`tui`) are thin front ends over it.

pub mod cli;
pub mod diag;
pub mod diff;
pub mod edit;
pub mod evidence;
pub mod export;
pub mod layout;
pub mod lint;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
pub mod recommend;
pub mod source;
pub mod synth;
pub mod text;
pub mod tokens;
pub mod tui;
pub mod watch;
