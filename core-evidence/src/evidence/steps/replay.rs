//! One run on the graph: the offer of a single step, and a record walked step by step
//! (what the TUI's step view and replay show, SPEC 8 "Runs on the graph").
//!
//! A step is computed exactly as `eval --steps` computes it: its seeds are the actions
//! calling the previous call's tool (`seeds_of` over the tool's callers), its offer the
//! tools the widest-path programme (`reach::Reach`) values at the threshold or above within
//! the hops, cut to what the run had (`available_tools`);
//! a record's first call is offered from its operator's seeds by `recommend`, as the
//! evaluation's first calls are.

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use super::reach::Reach;
use super::{available_tools, calling, seeds_of};
use crate::evidence::eval::{EvalOptions, target_of, tool_named};
use crate::evidence::{Record, Target};
use crate::model::Toolkit;
use crate::recommend::{Adjacency, Params, recommend};

/// What one step offers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Offer {
    /// The actions the recommendation starts from (sorted).
    pub seeds: Vec<NodeIndex>,
    /// The tools recommended, before the cut to what the run had (sorted).
    pub recommended: Vec<NodeIndex>,
    /// The tools offered: the recommended ones the run had (sorted).
    pub offered: Vec<NodeIndex>,
}

/// The seeds of the step after calls of `after`: the actions calling any of those tools.
pub fn step_seeds(tk: &Toolkit, after: &[NodeIndex]) -> Vec<NodeIndex> {
    seeds_of(after, |t| calling(tk, t).collect::<Vec<_>>())
}

/// The tools a run had, from its `available` names (`None`: not known, every tool; `[]`:
/// nothing, SPEC 8), as the step evaluation reads them.
pub fn available(tk: &Toolkit, names: Option<&[String]>) -> Option<Vec<NodeIndex>> {
    let names = names?;
    let mut out = Vec::new();
    available_tools(tk, names, &mut out);
    Some(out)
}

/// The offer of the step after calls of `after` at `params`, cut to `available` (sorted
/// tools; `None`: every tool).
pub fn offer_after(
    tk: &Toolkit,
    after: &[NodeIndex],
    params: Params,
    available: Option<&[NodeIndex]>,
) -> Offer {
    let adj = Adjacency::new(tk);
    let mut reach = Reach::new(tk.graph.node_bound());
    offer_with(tk, &adj, &mut reach, after, params, available)
}

/// [`offer_after`] with the adjacency and the walk's buffers kept across steps.
fn offer_with(
    tk: &Toolkit,
    adj: &Adjacency,
    reach: &mut Reach,
    after: &[NodeIndex],
    params: Params,
    available: Option<&[NodeIndex]>,
) -> Offer {
    let seeds = step_seeds(tk, after);
    let snaps = reach.snapshots(tk, adj, &seeds, params.hops);
    let mut recommended: Vec<NodeIndex> = snaps
        .last()
        .into_iter()
        .flatten()
        .filter(|&&(_, v)| v >= params.threshold)
        .map(|&(x, _)| x)
        .collect();
    recommended.sort_unstable();
    cut(seeds, recommended, available)
}

/// The offer of a first call: the recommendation from the operator's `seeds`.
pub fn offer_first(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    params: Params,
    available: Option<&[NodeIndex]>,
) -> Offer {
    let mut recommended = recommend(tk, seeds, params).tools;
    recommended.sort_unstable();
    let mut seeds = seeds.to_vec();
    seeds.sort_unstable();
    seeds.dedup();
    cut(seeds, recommended, available)
}

fn cut(
    seeds: Vec<NodeIndex>,
    recommended: Vec<NodeIndex>,
    available: Option<&[NodeIndex]>,
) -> Offer {
    let offered = match available {
        Some(set) => recommended
            .iter()
            .copied()
            .filter(|x| set.binary_search(x).is_ok())
            .collect(),
        None => recommended.clone(),
    };
    Offer {
        seeds,
        recommended,
        offered,
    }
}

/// One step of a replayed record (a `per_step` entry of SPEC 8, with its offer).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayStep {
    /// N: the record's call N, counting from 0.
    pub step: usize,
    /// The previous calls that seeded it, oldest first (`[]` for step 0).
    pub after: Vec<String>,
    /// The call made.
    pub next: String,
    /// The toolkit's tool (or group) of that name; `None`: not in the graph at all.
    pub target: Option<NodeIndex>,
    pub offer: Offer,
    /// The call was offered.
    pub hit: bool,
}

impl ReplayStep {
    /// Whether the call made was a tool the run had.
    pub fn was_available(&self, available: Option<&[NodeIndex]>) -> bool {
        match (self.target, available) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(t), Some(set)) => set.binary_search(&t).is_ok(),
        }
    }
}

/// A record walked step by step.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The group of the record (the operator's name, or `seeds:A,B`).
    pub group: String,
    /// The operator the record names (`None` for a seeds record).
    pub operator: Option<String>,
    pub params: Params,
    /// What the run had (sorted; `None`: not known, every tool).
    pub available: Option<Vec<NodeIndex>>,
    pub steps: Vec<ReplayStep>,
}

impl Replayed {
    /// Hits among steps `0..=k` and how many steps that is.
    pub fn hits_through(&self, k: usize) -> (usize, usize) {
        let upto = &self.steps[..(k + 1).min(self.steps.len())];
        (upto.iter().filter(|s| s.hit).count(), upto.len())
    }
}

/// The record a user names, as an index into `records`: its number (1 to n, in load order,
/// as `per_step` numbers them) or its `id`.
pub fn record_index(records: &[Record], word: &str) -> Result<usize, String> {
    if let Ok(n) = word.parse::<usize>() {
        return match n {
            1.. if n <= records.len() => Ok(n - 1),
            _ => Err(format!(
                "no record {n}: records are numbered 1 to {} in load order",
                records.len()
            )),
        };
    }
    records
        .iter()
        .position(|r| r.id.as_deref() == Some(word))
        .ok_or_else(|| format!("no record numbered or with id `{word}`"))
}

/// A replayed step in words, for a picture's title: `record 2, step 1 of 3: after cd,
/// called mv: a miss (outlined red)`.
pub fn caption(record: usize, played: &Replayed, s: &ReplayStep) -> String {
    let after = if s.after.is_empty() {
        "first call".to_string()
    } else {
        format!("after {}", s.after.join(", "))
    };
    let verdict = match (s.hit, s.target) {
        (true, _) => "a hit (outlined green)",
        (false, Some(_)) => "a miss (outlined red)",
        (false, None) => "a miss (no tool of the toolkit)",
    };
    format!(
        "record {}, step {} of {}: {after}, called {}: {verdict}",
        record + 1,
        s.step,
        played.steps.len().saturating_sub(1),
        s.next
    )
}

/// Walks record `r` at its parameters (`params` wins when given, as the command line's
/// do in `eval`), each step seeded by the last `context` calls (1: the previous call).
/// The message of the TS082 warning when it names no operator; a record without its calls
/// in order has no steps.
pub fn replay(
    tk: &Toolkit,
    r: &Record,
    params: Option<Params>,
    context: usize,
) -> Result<Replayed, String> {
    let opts = EvalOptions {
        threshold: params.map(|p| p.threshold),
        hops: params.map(|p| p.hops),
        ..EvalOptions::default()
    };
    let (group, seeds, params) = target_of(tk, r, &opts)?;
    let available = available(tk, r.available.as_deref());
    let calls = r.calls.as_deref().unwrap_or(&[]);
    let targets: Vec<Option<NodeIndex>> = calls.iter().map(|c| tool_named(tk, c)).collect();
    let k = context.max(1);
    let adj = Adjacency::new(tk);
    let mut reach = Reach::new(tk.graph.node_bound());
    let mut steps = Vec::with_capacity(calls.len());
    for (i, next) in calls.iter().enumerate() {
        let offer = if i == 0 {
            offer_first(tk, &seeds, params, available.as_deref())
        } else {
            let window = i.saturating_sub(k)..i;
            let mut after: Vec<NodeIndex> = targets[window].iter().flatten().copied().collect();
            after.sort_unstable();
            after.dedup();
            offer_with(tk, &adj, &mut reach, &after, params, available.as_deref())
        };
        let target = targets[i];
        let hit = target.is_some_and(|t| offer.offered.binary_search(&t).is_ok());
        steps.push(ReplayStep {
            step: i,
            after: calls[i.saturating_sub(k)..i].to_vec(),
            next: next.clone(),
            target,
            offer,
            hit,
        });
    }
    let operator = match &r.target {
        Target::Operator(_) => Some(group.clone()),
        Target::Seeds(_) => None,
    };
    Ok(Replayed {
        group,
        operator,
        params,
        available,
        steps,
    })
}

/// Whether `tk` has the shape `init` gives a toolkit: every action is named `call <tool>`
/// (or `call <tool> (2)`...) and calls that one tool, and there is at least one. On such a
/// kit an operator's seeds are every tool some run called first, so the union of their
/// offers is no useful picture: the TUI opens on one step instead (see [`opening_tool`]).
pub fn is_step_kit(tk: &Toolkit) -> bool {
    use crate::model::{EdgeKind, NodeKind};
    let mut any = false;
    for a in tk.nodes_of(NodeKind::Action) {
        any = true;
        let mut calls = tk
            .out_edges(a)
            .filter(|&(e, _)| tk.graph[e].kind == EdgeKind::Call);
        let (Some((_, x)), None) = (calls.next(), calls.next()) else {
            return false;
        };
        let name = tk.name(a);
        let tool = tk.name(x);
        let named = name.strip_prefix("call ").is_some_and(|rest| {
            rest == tool || rest.strip_prefix(tool).is_some_and(|r| r.starts_with(" ("))
        });
        if !named {
            return false;
        }
    }
    any
}

/// The tool whose step a step kit opens on for operator `op` at `params`: of its seeds'
/// tools, ordered by how many of its loaded records call each first (without such
/// records: by the `Next` weight pointing to its action, the sum of the scores of the
/// `Next` edges into it, which on a kit `init` made follows how often the runs call it),
/// ties by name, the first whose step offers at most `room` tools (what the screen holds
/// whole); when none does, the one with the smallest offer. `None` when no seed calls a
/// tool.
pub fn opening_tool(
    tk: &Toolkit,
    op: &crate::model::Operator,
    records: &[Record],
    params: Params,
    room: usize,
) -> Option<NodeIndex> {
    use crate::model::{EdgeKind, NodeKind};
    use std::collections::HashMap;
    let mut firsts: HashMap<NodeIndex, usize> = HashMap::new();
    for r in records {
        if r.target != Target::Operator(op.name.clone()) {
            continue;
        }
        let first = r.calls.as_ref().unwrap_or(&r.called).first();
        if let Some(x) = first.and_then(|n| tool_named(tk, n)) {
            *firsts.entry(x).or_default() += 1;
        }
    }
    let (seeds, _) = crate::recommend::resolve_seeds(tk, &op.actions);
    let weight = |a: NodeIndex| -> f64 {
        tk.in_edges(a)
            .filter(|&(e, _)| tk.graph[e].kind == EdgeKind::Next)
            .map(|(e, _)| tk.graph[e].score)
            .filter(|s| s.is_finite())
            .sum()
    };
    // (first calls, Next weight, tool) per seed calling a tool.
    let mut tools: Vec<(usize, f64, NodeIndex)> = seeds
        .iter()
        .filter(|&&a| tk.kind(a) == NodeKind::Action)
        .filter_map(|&a| {
            let (_, x) = tk
                .out_edges(a)
                .find(|&(e, _)| tk.graph[e].kind == EdgeKind::Call)?;
            Some((firsts.get(&x).copied().unwrap_or(0), weight(a), x))
        })
        .collect();
    let by_records = !firsts.is_empty();
    tools.sort_by(|a, b| {
        let key = if by_records {
            b.0.cmp(&a.0)
        } else {
            b.1.total_cmp(&a.1)
        };
        key.then(tk.name(a.2).cmp(tk.name(b.2)))
    });
    let mut smallest: Option<(usize, NodeIndex)> = None;
    for &(_, _, x) in &tools {
        let n = offer_after(tk, &[x], params, None).offered.len();
        if n <= room {
            return Some(x);
        }
        if smallest.is_none_or(|(m, _)| n < m) {
            smallest = Some((n, x));
        }
    }
    smallest.map(|(_, x)| x)
}
