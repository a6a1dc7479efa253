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

#[cfg(not(test))]
pub use toolscope_base::{bounded, diag, layout, model, recommend, source, text};
#[cfg(not(test))]
pub use toolscope_edit::{diff, edit, export, formats, generate, lint, mcp, watch};
#[cfg(not(test))]
pub use toolscope_evidence::evidence;

// This crate's test build compiles the lower crates' modules here, as one crate, instead
// of re-exporting them: their unit tests (`#[cfg(test)]`) may use any module, as they did
// before the split (a layout test loads a toolkit through `load`), and nothing imports a
// test. So the lower crates build their tests nowhere else (`test = false`), and their
// non-test code is still compiled in its own crate, where an import that goes up fails.
#[cfg(test)]
#[path = "../../core-base/src"]
mod base_crate {
    pub mod bounded;
    pub mod diag;
    pub mod layout;
    pub mod model;
    pub mod recommend;
    pub mod source;
    pub mod text;
}
#[cfg(test)]
#[path = "../../core-edit/src"]
mod edit_crate {
    pub mod diff;
    pub mod edit;
    pub mod export;
    pub mod formats;
    pub mod generate;
    pub mod lint;
    pub mod mcp;
    pub mod watch;
}
#[cfg(test)]
#[path = "../../core-evidence/src"]
mod evidence_crate {
    pub mod evidence;
}
#[cfg(test)]
pub use base_crate::{bounded, diag, layout, model, recommend, source, text};
#[cfg(test)]
pub use edit_crate::{diff, edit, export, formats, generate, lint, mcp, watch};
#[cfg(test)]
pub use evidence_crate::evidence;

pub mod fit;
pub mod load;
pub mod session;
pub mod tokens;
pub mod workspace;
