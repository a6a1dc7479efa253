//! Loads arbitrary bytes as a native toolkit with the action edges made on one thread and
//! on two (`source::action_edges`): the graph, operators, diagnostics and unresolved
//! references must be the same, or the load must fail the same way.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolscope_core::source::{Format, Limits, load_text};

/// The load as text (Debug of everything it gives), with the edges split from
/// `two_threads_from` actions.
fn outcome(text: &str, two_threads_from: usize) -> String {
    let limits = Limits {
        two_threads_from,
        ..Limits::default()
    };
    match load_text(Path::new("f.yaml"), text.to_string(), Some(Format::Native), &limits) {
        Ok(f) => format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            f.toolkit.graph, f.toolkit.operators, f.diagnostics, f.unresolved
        ),
        Err(e) => format!("error {e:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let one = outcome(text, usize::MAX);
    let two = outcome(text, 1);
    assert!(one == two, "one thread:\n{one}\n\ntwo threads:\n{two}");
});
