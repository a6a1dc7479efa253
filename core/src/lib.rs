//! toolscope's core: the toolkit graph and everything done with it, with no terminal and
//! no command line. The CLI and the TUI (the `toolscope` crate) are thin front ends over
//! it; the compiler keeps the boundary, since this crate cannot name them.
//!
//! The core is four crates, one per band of its layers (docs/architecture.md):
//! `toolscope-base` (the graph, the source tree, recommendation, layout), `toolscope-edit`
//! (edits, MCP, the formats and exports), `toolscope-evidence` (traces and what is learnt
//! from them) and this one (loading, tokens, the fit pipeline, the applier, the session).
//! A crate names only the crates below it, so Cargo refuses an import that goes up. This
//! crate re-exports the lower crates' modules, so `toolscope_core::model::..` names every
//! module as before.

pub use toolscope_base::{bounded, diag, layout, model, recommend, source, text};
pub use toolscope_edit::{diff, edit, export, formats, generate, lint, mcp, watch};
pub use toolscope_evidence::evidence;

pub mod fit;
pub mod load;
pub mod session;
pub mod tokens;
pub mod workspace;

// Unit tests of lower crates' modules that need loading, the workspace or the evidence
// (all above those crates): they test the combination, so they live in the crate that
// sees it. Each lower crate runs its other unit tests itself.
#[cfg(test)]
mod generate_tests;
#[cfg(test)]
mod join_tests;
#[cfg(test)]
mod layout_tests;
#[cfg(test)]
mod model_tests;
