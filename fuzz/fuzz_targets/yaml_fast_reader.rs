//! Arbitrary text: when the fast YAML reader reads it, its tree must be the one
//! granit-parser's events build, node for node (and neither may panic).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        assert!(
            toolscope_core::source::yaml::fast_reader_agrees(text),
            "the fast reader built another tree than granit-parser for {text:?}"
        );
    }
});
