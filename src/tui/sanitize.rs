//! Escaping of YAML text for the screen lives in the core ([`toolscope_core::text`]) so that the CLI
//! uses the same rules; this module keeps the TUI's import path.

pub use toolscope_core::text::{sanitize, sanitize_lines};
