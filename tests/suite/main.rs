//! The integration tests, as one test binary: each file here was a binary of its own, and
//! linking 38 of them took more of CI's time than running them (issue 30). A test file is
//! a module below; `cargo test --test suite NAME` runs one of them (`hostile::` for a
//! file, a test's name for one test). `tests/golden_edits.rs` (insta names its snapshots
//! by module path) and `tests/mcp` (a plain `main` that is also its test server) stay
//! binaries of their own.

/// Helpers shared by the test files.
mod common {
    pub mod pyyaml;
    pub mod rng;
    pub mod shared;
    pub mod tmux;
}

mod boundary;
mod c2g_calls;
mod c2g_eval;
mod cli;
mod cli_set;
mod convert;
mod docs_commands;
mod evidence;
mod faults;
mod figures;
mod hard_links;
mod hostile;
mod hostile_load;
mod hostile_output;
mod hostile_traces;
mod insight;
mod issue35;
mod issue35_c2g;
mod issue46_bounds;
mod issue46_writeback;
mod learn;
mod loader;
mod mcp_members;
mod memory_budget;
mod otlp_libs;
mod picture;
mod prop_batch;
mod prop_batch_c2g;
mod prop_writeback;
mod pyyaml_writers;
mod robustness;
mod route_presets;
mod set_folder;
mod set_safety;
mod special_outputs;
mod svg;
mod transactions;
mod tui_safety;
mod tui_tmux;
mod tui_tmux_evidence;
mod tui_tmux_fit;
mod tui_tmux_focus;
mod tui_tmux_hands;
mod tui_tmux_insight;
mod tui_tmux_mcp;
mod tui_tmux_open;
mod tui_tmux_player;
mod tui_tmux_recovery;
mod tui_tmux_replay;
mod watch;
mod window_verify;
mod writeback;
