//! toolscope's core: the toolkit graph and everything done with it, with no terminal and
//! no command line. The CLI and the TUI (the `toolscope` crate) are thin front ends over
//! it; the compiler keeps the boundary, since this crate cannot name them.

pub mod bounded;
pub mod diag;
pub mod diff;
pub mod edit;
pub mod evidence;
pub mod export;
pub mod formats;
pub mod generate;
pub mod layout;
pub mod lint;
pub mod load;
pub mod mcp;
pub mod model;
pub mod recommend;
pub mod session;
pub mod source;
pub mod text;
pub mod tokens;
pub mod watch;
pub mod workspace;
