//! toolscope's front ends over [`toolscope_core`]: the command line (`cli`) and the
//! terminal UI (`tui`). Neither names the other; `main` picks one.

pub mod cli;
pub mod tui;
