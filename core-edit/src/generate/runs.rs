//! Synthetic ordered runs of a toolkit (`toolscope gen --runs STEPS`), for measuring the
//! step evaluation at scale: each record starts at a seed of an operator and walks the
//! graph, calling one tool of each action it passes and moving along a `Next` edge (now
//! and then repeating a call or jumping to a random action), so the steps look like runs
//! of an agent that mostly follows the graph. Deterministic for a seed.

use std::io::Write;

use petgraph::stable_graph::NodeIndex;

use super::Rng;
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::recommend::resolve_seeds;

/// Calls per record: 6, so 5 steps each.
pub const CALLS_PER_RECORD: usize = 6;

/// Writes records whose steps add up to `steps` (the last record may be shorter) as JSONL.
pub fn write_runs(
    tk: &Toolkit,
    steps: usize,
    seed: u64,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut rng = Rng(seed ^ 0x005e_ed0f_2075);
    let actions: Vec<NodeIndex> = tk.nodes_of(NodeKind::Action).collect();
    if actions.is_empty() || tk.operators.is_empty() {
        return Ok(());
    }
    let mut left = steps;
    let mut line = String::new();
    while left > 0 {
        let op = &tk.operators[rng.below(tk.operators.len())];
        let (seeds, _) = resolve_seeds(tk, &op.actions);
        let mut at = match seeds.is_empty() {
            true => actions[rng.below(actions.len())],
            false => seeds[rng.below(seeds.len())],
        };
        let n = (left + 1).min(CALLS_PER_RECORD);
        let mut calls: Vec<&str> = Vec::with_capacity(n);
        while calls.len() < n {
            match pick(tk, at, EdgeKind::Call, &mut rng) {
                Some(t) => calls.push(tk.name(t)),
                None if calls.is_empty() => break,
                None => calls.push(calls[calls.len() - 1]),
            }
            at = match (rng.below(10), pick(tk, at, EdgeKind::Next, &mut rng)) {
                (0, _) | (_, None) => actions[rng.below(actions.len())],
                (_, Some(b)) => b,
            };
        }
        if calls.len() < 2 {
            continue;
        }
        left -= calls.len() - 1;
        line.clear();
        line.push_str("{\"operator\": ");
        line.push_str(&serde_json::Value::from(op.name.as_str()).to_string());
        line.push_str(", \"calls\": [");
        for (i, c) in calls.iter().enumerate() {
            if i > 0 {
                line.push_str(", ");
            }
            line.push_str(&serde_json::Value::from(*c).to_string());
        }
        line.push_str("]}\n");
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// A random out-neighbour of `a` by an edge of `kind`.
fn pick(tk: &Toolkit, a: NodeIndex, kind: EdgeKind, rng: &mut Rng) -> Option<NodeIndex> {
    let targets: Vec<NodeIndex> = tk
        .out_edges(a)
        .filter(|&(e, _)| tk.graph[e].kind == kind)
        .map(|(_, v)| v)
        .collect();
    (!targets.is_empty()).then(|| targets[rng.below(targets.len())])
}
