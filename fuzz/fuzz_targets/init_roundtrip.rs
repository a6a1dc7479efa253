//! `toolscope init` on arbitrary definitions and traces: reading them may refuse but
//! never panic, and a toolkit it builds must load back as written, with no error, the
//! same nodes and edges, and no lint error. The input is split at its first 0xFF byte:
//! definitions before it, a trace file (JSONL, or OTLP when it starts with `{"resource`)
//! after it.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolscope_core::diag::Severity;
use toolscope_core::evidence::defs::parse;
use toolscope_core::evidence::init::{build, duplicates};
use toolscope_core::evidence::{otlp, traces};
use toolscope_core::export::native::to_native;
use toolscope_core::source::{Format, Limits, Loaded};
use toolscope_core::load::load_text;

fuzz_target!(|data: &[u8]| {
    let (defs, runs) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let (Ok(defs), Ok(runs)) = (std::str::from_utf8(defs), std::str::from_utf8(runs)) else {
        return;
    };
    let Ok(sources) = parse("defs", "defs.json", defs) else {
        return;
    };
    if !duplicates(&sources).is_empty() {
        return;
    }
    let (records, _) = if runs.trim_start().starts_with("{\"resource") {
        otlp::parse_otlp("runs.json", runs, &otlp::OperatorNaming::default())
    } else {
        traces::parse_jsonl("runs.jsonl", runs)
    };
    let (tk, _) = build("kit", &sources, &records);
    let text = to_native(&tk);
    let file = match load_text(
        Path::new("kit.yaml"),
        text.clone(),
        Some(Format::Native),
        &Limits::default(),
    ) {
        Ok(f) => f,
        Err(e) => panic!("init's toolkit does not load: {e:?}\n{text}"),
    };
    let errors: Vec<_> = file
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "init's toolkit loads with errors: {errors:?}\n{text}"
    );
    assert_eq!(
        file.toolkit.counts(),
        tk.counts(),
        "nodes changed on reload\n{text}"
    );
    assert_eq!(
        file.toolkit.graph.edge_count(),
        tk.graph.edge_count(),
        "edges changed on reload\n{text}"
    );
    let loaded = Loaded {
        toolkit: file.toolkit,
        files: vec![file.source],
        diagnostics: file.diagnostics,
    };
    let lint_errors: Vec<_> = toolscope_core::lint::lint(&loaded)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        lint_errors.is_empty(),
        "lint errors on init's toolkit: {lint_errors:?}\n{text}"
    );
});
