//! Escaping of YAML text for the screen lives in the core ([`crate::text`]) so that the CLI
//! uses the same rules; this module keeps the TUI's import path.

pub use crate::text::{sanitize, sanitize_lines};
