//! toolscope's core, bottom layer (docs/architecture.md): the toolkit graph and what reads
//! and lays it out, with no format, no edit and no terminal. The crates above it
//! (`toolscope-edit`, `toolscope-evidence`, `toolscope-core`) may use it; it names none of
//! them, and Cargo refuses it if it tries.

pub mod bounded;
pub mod diag;
pub mod layout;
pub mod model;
pub mod recommend;
pub mod source;
pub mod text;
