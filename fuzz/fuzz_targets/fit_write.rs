//! `fit --write` on random kits and traces (issue 35): fits the records, applies the
//! changes as `fit` does (one transaction of scores and, with `--add-edges` on a native
//! file, added Next edges), and saves. Checked:
//! - the batch gives the bytes, graph and notes the same transaction gives with the batch
//!   off (edit by edit against a fresh parse each);
//! - the written text loads back to the graph the workspace holds;
//! - undo gives back the original bytes;
//! - the saved file holds exactly the workspace's text.
//!
//! Input: the kit's text, then a NUL and the bytes that make the traces (a kit never holds
//! a NUL). Without a NUL the kit is the whole input and its last bytes make the traces, so
//! the plain toolkits CI seeds every target with are fitted too. Trace bytes: the first
//! holds flags (bit 0: `--add-edges`), then each record is an operator byte and call bytes
//! up to a 0xFF, each call naming a tool or group of the kit (or, for a few values, a name
//! the kit lacks), as JSONL read through the real reader.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::evidence::eval::{EvalOptions, resolve};
use toolscope_core::evidence::fit::Changes;
use toolscope_core::evidence::traces::parse_jsonl;
use toolscope_core::model::{NodeKind, Toolkit};
use toolscope_core::source::Format;
use toolscope_core::workspace::Workspace;

/// The traces' JSONL, from the trace bytes and the kit's names.
fn traces(tk: &Toolkit, bytes: &[u8]) -> String {
    let names: Vec<&str> = tk
        .graph
        .node_indices()
        .filter(|&n| tk.kind(n) != NodeKind::Action)
        .map(|n| tk.name(n))
        .collect();
    let mut out = String::new();
    for run in bytes.split(|&b| b == 0xFF).take(64) {
        let Some((&op, calls)) = run.split_first() else {
            continue;
        };
        let calls: Vec<String> = calls
            .iter()
            .take(32)
            .map(|&c| match names.get(usize::from(c) % (names.len() + 2)) {
                Some(n) => (*n).to_string(),
                None => format!("unknown{}", c % 3),
            })
            .collect();
        let mut line = serde_json::Map::new();
        if let Some(o) = tk
            .operators
            .get(usize::from(op) % tk.operators.len().max(1))
        {
            line.insert("operator".into(), o.name.clone().into());
        }
        line.insert("calls".into(), calls.into());
        out.push_str(&serde_json::Value::Object(line).to_string());
        out.push('\n');
    }
    out
}

/// The workspace's one file's text, the graph (edges with kinds and scores, sorted), and
/// the notes of an applied transaction; `None` when it was refused.
type Outcome = Option<(String, Vec<String>, Vec<String>)>;

fn outcome(ws: &mut Workspace, edits: &[Edit], min_batch: usize) -> Outcome {
    let before = ws.files()[0].source.text.clone();
    ws.set_min_batch(min_batch);
    let Ok(applied) = ws.apply(Transaction::from(edits.to_vec())) else {
        assert_eq!(
            ws.files()[0].source.text,
            before,
            "a refused fit changed the text"
        );
        return None;
    };
    let tk = &ws.toolkit;
    let mut graph: Vec<String> = tk
        .graph
        .edge_indices()
        .filter_map(|e| {
            let (u, v) = tk.graph.edge_endpoints(e)?;
            let w = &tk.graph[e];
            Some(format!(
                "{:?} {} -> {} {}",
                w.kind,
                tk.name(u),
                tk.name(v),
                w.score
            ))
        })
        .collect();
    graph.sort();
    let mut notes = applied.notes;
    notes.sort();
    notes.dedup();
    Some((ws.files()[0].source.text.clone(), graph, notes))
}

/// Where the kit is written for the save: memory-backed when the machine has it (a save
/// syncs the file, which on a disk would bound the run by the disk).
fn scratch() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    base.join(format!("toolscope-fuzz-fit-{}", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let (kit, trace_bytes) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &data[data.len().saturating_sub(32)..]),
    };
    let Ok(text) = std::str::from_utf8(kit) else {
        return;
    };
    let Some((&flags, runs)) = trace_bytes.split_first() else {
        return;
    };
    let dir = scratch();
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    // `.yml`/`.yaml` as the kit's own text suggests does not matter: the format is read
    // from the content.
    let path = dir.join("kit.yaml");
    if std::fs::write(&path, text).is_err() {
        return;
    }
    let Ok(mut ws) = Workspace::open(std::slice::from_ref(&path), None) else {
        return;
    };
    if ws.files().len() != 1 {
        return;
    }
    let original = ws.files()[0].source.text.clone();
    let tk = ws.toolkit.clone();
    let (records, _) = parse_jsonl("runs.jsonl", &traces(&tk, runs));
    let used = resolve(&tk, &records, &EvalOptions::default()).0;
    // As `fit` does: a Chat2Graph file's chains fix its edges.
    let add_edges = flags & 1 == 1 && !ws.holds(Format::Chat2Graph);
    let changes = Changes::new(&tk, &used, add_edges);
    let edits = changes.edits(&tk);
    if edits.is_empty() {
        return;
    }

    let mut one_by_one = match Workspace::open(std::slice::from_ref(&path), None) {
        Ok(w) => w,
        Err(e) => panic!("the kit opened once and not twice: {e}"),
    };
    let sequential = outcome(&mut one_by_one, &edits, usize::MAX);
    let batch = outcome(&mut ws, &edits, 2);
    assert_eq!(
        batch, sequential,
        "the batch differs from the edits one by one"
    );
    let Some((after, _, _)) = batch else {
        return;
    };
    match ws.loads_back(0) {
        Ok(reloaded) => assert_eq!(reloaded.difference(&ws.toolkit), None),
        Err(e) => panic!("a fit's text does not load back: {e}"),
    }
    if let Err(e) = ws.save_all() {
        panic!("a verified fit was not saved: {e}");
    }
    match std::fs::read_to_string(&path) {
        Ok(saved) => assert_eq!(saved, after, "the saved file is not the fitted text"),
        Err(e) => panic!("the saved file cannot be read: {e}"),
    }
    ws.undo();
    assert_eq!(ws.files()[0].source.text, original, "undo of a fit");
});
