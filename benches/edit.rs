//! One edit plus verify plus atomic save, at 1k, 10k and 100k actions (native format).
//! Each iteration sets one score to a new value, so every save writes; `threshold` sets
//! an operator's threshold instead (the tuning edit, proven in the operator's lines), and
//! `threshold_and_hops` both as one transaction (what the TUI writes on save). `write_only` is the
//! write itself (lock, content check, temporary file, write, fsync, content check, rename)
//! of the same text: the edit and its verify cost the difference.
//!
//! `fit_batch` is what `fit --add-edges` applies (issue 35): a score on every Call and Next
//! edge of the kit (the members of its MCP groups scored on their own) and two Next edges
//! added per action, as one transaction, without the save: one parse of the file for all
//! of them, and the actions given two edges patched in their own lines.

use std::path::PathBuf;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::generate::{GenOptions, generate};
use toolscope_core::workspace::Workspace;

fn setup(dir: &std::path::Path, actions: usize) -> Option<(PathBuf, Workspace, Edit)> {
    let path = dir.join(format!("g{actions}.yaml"));
    let text = generate(GenOptions {
        actions,
        tools: None,
        seed: 1,
    });
    std::fs::write(&path, text).ok()?;
    let ws = Workspace::open(std::slice::from_ref(&path), None).ok()?;
    let tk = &ws.toolkit;
    let e = tk.graph.edge_indices().next_back()?;
    let (u, v) = tk.graph.edge_endpoints(e)?;
    let edit = Edit::SetScore {
        from: tk.name(u).to_string(),
        to: tk.name(v).to_string(),
        to_kind: tk.kind(v),
        score: 0.5,
    };
    Some((path, ws, edit))
}

/// Each iteration applies the change `make` gives for the next value of a flip (so every
/// save writes) and saves it.
fn save_each(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    ws: &mut Workspace,
    mut make: impl FnMut(bool) -> Transaction,
) {
    let mut flip = false;
    group.bench_function(id, |b| {
        b.iter(|| {
            flip = !flip;
            ws.apply(make(flip)).is_ok() && ws.save_all().is_ok()
        })
    });
}

fn edit_save(c: &mut Criterion) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let mut group = c.benchmark_group("edit_verify_save");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for n in [1_000, 10_000, 100_000] {
        let Some((_path, mut ws, edit)) = setup(dir.path(), n) else {
            continue;
        };
        let text = ws.files()[0].source.text.clone();
        let other = text.replacen("name: ", "name:  ", 1);
        let path = _path.clone();
        let mut wflip = false;
        group.bench_function(BenchmarkId::new("write_only", n), |b| {
            b.iter(|| {
                wflip = !wflip;
                let (from, to) = if wflip {
                    (&text, &other)
                } else {
                    (&other, &text)
                };
                toolscope_core::source::save::replace(&path, Some(from), to).is_ok()
            })
        });
        // Back to the text the workspace loaded.
        let _ = std::fs::write(&path, &text);
        let score = |flip: bool| {
            let mut e = edit.clone();
            if let Edit::SetScore { score, .. } = &mut e {
                *score = if flip { 0.25 } else { 0.75 };
            }
            Transaction::from(e)
        };
        save_each(&mut group, BenchmarkId::from_parameter(n), &mut ws, score);
        let threshold = |flip: bool| {
            Transaction::from(Edit::SetThreshold {
                operator: "op0".into(),
                value: if flip { 0.3 } else { 0.7 },
            })
        };
        save_each(
            &mut group,
            BenchmarkId::new("threshold", n),
            &mut ws,
            threshold,
        );
        // Threshold and hops as one transaction, as the TUI writes them on save.
        let both = |flip: bool| {
            Transaction::from(vec![
                Edit::SetThreshold {
                    operator: "op0".into(),
                    value: if flip { 0.35 } else { 0.65 },
                },
                Edit::SetHops {
                    operator: "op0".into(),
                    value: if flip { 2 } else { 4 },
                },
            ])
        };
        save_each(
            &mut group,
            BenchmarkId::new("threshold_and_hops", n),
            &mut ws,
            both,
        );
    }
    group.finish();
}

/// Fit's edits on a generated kit: every edge scored, then two Next edges added per action.
fn fit_edits(tk: &toolscope_core::model::Toolkit) -> Vec<Edit> {
    use toolscope_core::model::{EdgeKind, NodeKind};
    let actions: Vec<_> = tk.nodes_of(NodeKind::Action).collect();
    let mut edits = Vec::new();
    for &a in &actions {
        for (e, to) in tk.out_edges(a) {
            if tk.graph[e].kind != EdgeKind::Has {
                edits.push(Edit::SetScore {
                    from: tk.name(a).to_string(),
                    to: tk.name(to).to_string(),
                    to_kind: tk.kind(to),
                    // A group's reference one score, its members another: each member
                    // then gets an item of its own next to the reference.
                    score: match (tk.kind(to), tk.graph[e].score) {
                        (NodeKind::Group, 0.35) => 0.4,
                        (NodeKind::Group, _) => 0.35,
                        (_, 0.55) => 0.6,
                        _ => 0.55,
                    },
                });
            }
        }
    }
    for (i, &a) in actions.iter().enumerate() {
        let targets = (1..actions.len())
            .map(|k| actions[(i + k * 7) % actions.len()])
            .filter(|&b| b != a && tk.edge(a, b).is_none())
            .take(2);
        for b in targets {
            edits.push(Edit::AddEdge {
                from: tk.name(a).to_string(),
                to: tk.name(b).to_string(),
                to_kind: NodeKind::Action,
                score: 0.45,
            });
        }
    }
    edits
}

fn fit_batch(c: &mut Criterion) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let mut group = c.benchmark_group("fit_batch");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for n in [1_000, 10_000, 100_000] {
        let Some((_path, ws, _)) = setup(dir.path(), n) else {
            continue;
        };
        let edits = fit_edits(&ws.toolkit);
        group.bench_function(BenchmarkId::new("scores_and_added_edges", n), |b| {
            b.iter_batched(
                || (ws.clone(), Transaction::from(edits.clone())),
                |(mut ws, txn)| ws.apply(txn).is_ok(),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, edit_save, fit_batch);
criterion_main!(benches);
