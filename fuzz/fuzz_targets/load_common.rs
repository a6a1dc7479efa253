//! Shared body of the loader targets: load arbitrary bytes in one format, then lint and
//! export the result. None of it may panic.

use std::path::Path;

use toolscope_core::source::{Format, Limits, Loaded};
use toolscope_core::load::load_text;

pub fn exercise(data: &[u8], format: Format) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = load_text(Path::new("f.yaml"), text.to_string(), Some(format), &Limits::default()) {
        let loaded = Loaded {
            toolkit: file.toolkit,
            files: vec![file.source],
            diagnostics: file.diagnostics,
        };
        let _ = toolscope_core::lint::lint(&loaded);
        let _ = toolscope_core::export::native::to_native(&loaded.toolkit);
    }
}
