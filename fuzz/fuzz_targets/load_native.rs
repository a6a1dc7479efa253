//! Loads arbitrary bytes as a native toolkit, then lints and exports it: none may panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolscope::source::{Format, Limits, Loaded, load_text};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = load_text(Path::new("f.yaml"), text.to_string(), Some(Format::Native), &Limits::default()) {
        let loaded = Loaded {
            toolkit: file.toolkit,
            files: vec![file.source],
            diagnostics: file.diagnostics,
        };
        let _ = toolscope::lint::lint(&loaded);
        let _ = toolscope::export::native::to_native(&loaded.toolkit);
    }
});
