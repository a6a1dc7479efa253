//! One run on the graph: the offer of a single step, and a record walked step by step
//! (what the TUI's step view and replay show, SPEC 8 "Runs on the graph").
//!
//! A step is computed exactly as `eval --steps` computes it: its seeds are the actions
//! calling the previous call's tool (`seeds_of` over the tool's callers), its offer the
//! tools the widest-path programme (`reach::Reach`) values at the threshold or above within
//! the hops, cut to what the run had (`available_tools`);
//! a record's first call is offered from its operator's seeds by `recommend`, as the
//! evaluation's first calls are.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use super::reach::Reach;
use super::{calling, seeds_of};
use crate::evidence::resolve::available_tools;
use crate::evidence::resolve::{EvalOptions, target_of, tool_named};
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

/// A record to walk step by step. Nothing is walked when it is made: a step's offer is
/// computed when asked for ([`Replayed::step`]), one walk of the graph each, so a record
/// of 100,000 calls costs what the steps shown cost (SPEC 8; issue 46: a 5,000-call record
/// at `threshold 0, hops 20` on a 10k-action kit was walked whole, twice, before the
/// first key was answered, and every step's offer held: 1.8 GB for 20,000 calls). The
/// hits, for the recall so far, are walked apart ([`Walk::hits`], on a thread of its own
/// in the TUI) and kept as one bit a step.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The group of the record (the operator's name, or `seeds:A,B`).
    pub group: String,
    /// The operator the record names (`None` for a seeds record).
    pub operator: Option<String>,
    pub params: Params,
    /// What the run had (sorted; `None`: not known, every tool).
    pub available: Option<Vec<NodeIndex>>,
    /// What a step is computed from, shared with a walk of the hits on another thread.
    walk: Arc<Walk>,
    /// Per step whether its call was offered, once walked.
    hits: Vec<Option<bool>>,
}

/// What the steps of a record are computed from.
#[derive(Debug, PartialEq)]
pub struct Walk {
    calls: Vec<String>,
    targets: Vec<Option<NodeIndex>>,
    /// The operator's seeds (step 0's).
    seeds: Vec<NodeIndex>,
    params: Params,
    available: Option<Vec<NodeIndex>>,
    /// How many previous calls seed a step.
    context: usize,
}

thread_local! {
    static WALKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many replay steps were walked on this thread so far (each is one walk of the graph):
/// what the tests bound, where timing would be unreliable.
pub fn steps_walked() -> u64 {
    WALKED.with(|w| w.get())
}

fn walked_one() {
    WALKED.with(|w| w.set(w.get() + 1));
}

impl Walk {
    /// Steps 0 to `upto` (at most the last), without their offers: whether each call was
    /// offered. `None` when `stop` was set meanwhile (checked before each step).
    pub fn hits(&self, tk: &Toolkit, upto: usize, stop: &AtomicBool) -> Option<Vec<bool>> {
        let n = (upto + 1).min(self.calls.len());
        let adj = Adjacency::new(tk);
        let mut reach = Reach::new(tk.graph.node_bound());
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            out.push(self.offer(tk, &adj, &mut reach, i).1);
        }
        Some(out)
    }

    /// Whether step `i`'s call was offered (one walk), with the adjacency and the walk's
    /// buffers kept across steps (the search for a miss across runs).
    pub(super) fn hit_at(
        &self,
        tk: &Toolkit,
        adj: &Adjacency,
        reach: &mut Reach,
        i: usize,
    ) -> bool {
        i < self.calls.len() && self.offer(tk, adj, reach, i).1
    }

    /// Step `i`'s offer and whether its call was in it (one walk).
    fn offer(&self, tk: &Toolkit, adj: &Adjacency, reach: &mut Reach, i: usize) -> (Offer, bool) {
        walked_one();
        let available = self.available.as_deref();
        let offer = if i == 0 {
            offer_first(tk, &self.seeds, self.params, available)
        } else {
            let window = i.saturating_sub(self.context)..i;
            let mut after: Vec<NodeIndex> =
                self.targets[window].iter().flatten().copied().collect();
            after.sort_unstable();
            after.dedup();
            offer_with(tk, adj, reach, &after, self.params, available)
        };
        let hit = self.targets[i].is_some_and(|t| offer.offered.binary_search(&t).is_ok());
        (offer, hit)
    }

    /// Step `i` whole (`None` past the last).
    fn step(&self, tk: &Toolkit, i: usize) -> Option<ReplayStep> {
        let next = self.calls.get(i)?;
        let adj = Adjacency::new(tk);
        let mut reach = Reach::new(tk.graph.node_bound());
        let (offer, hit) = self.offer(tk, &adj, &mut reach, i);
        Some(ReplayStep {
            step: i,
            after: self.calls[i.saturating_sub(self.context)..i].to_vec(),
            next: next.clone(),
            target: self.targets[i],
            offer,
            hit,
        })
    }
}

impl Replayed {
    /// How many steps the record has (one per call).
    pub fn len(&self) -> usize {
        self.walk.calls.len()
    }

    pub fn is_empty(&self) -> bool {
        self.walk.calls.is_empty()
    }

    /// Step `i`, computed now (one walk of the graph); `None` past the last. Its hit is kept.
    pub fn step(&mut self, tk: &Toolkit, i: usize) -> Option<ReplayStep> {
        let s = self.walk.step(tk, i)?;
        if let Some(h) = self.hits.get_mut(i) {
            *h = Some(s.hit);
        }
        Some(s)
    }

    /// Every step (a walk each): for a short record, or a test.
    pub fn all_steps(&mut self, tk: &Toolkit) -> Vec<ReplayStep> {
        (0..self.len()).filter_map(|i| self.step(tk, i)).collect()
    }

    /// What the steps are computed from, for a walk of the hits elsewhere.
    pub fn walk(&self) -> Arc<Walk> {
        Arc::clone(&self.walk)
    }

    /// The hits of steps `0..hits.len()`, walked by [`Walk::hits`].
    pub fn set_hits(&mut self, hits: &[bool]) {
        for (slot, &h) in self.hits.iter_mut().zip(hits) {
            *slot = Some(h);
        }
    }

    /// Hits among steps `0..=k` and how many steps that is; `None` while one of them is
    /// not walked yet.
    pub fn hits_through(&self, k: usize) -> Option<(usize, usize)> {
        let upto = &self.hits[..(k + 1).min(self.hits.len())];
        let mut hits = 0;
        for h in upto {
            hits += usize::from((*h)?);
        }
        Some((hits, upto.len()))
    }
}

/// The record a user names, as an index into `records`: its number (1 to n, in load order,
/// as `per_step` numbers them), else its `id` (for OTLP runs the trace id, as Langfuse
/// and Phoenix show it; a trace holding several runs names its first).
pub fn record_index(records: &[Record], word: &str) -> Result<usize, String> {
    let number = word.parse::<usize>().ok();
    if let Some(n @ 1..) = number
        && n <= records.len()
    {
        return Ok(n - 1);
    }
    let exact = records.iter().position(|r| r.id.as_deref() == Some(word));
    let of_trace = || {
        records.iter().position(|r| {
            r.id.as_deref()
                .and_then(|id| id.strip_prefix(word))
                .is_some_and(|s| s.starts_with('/'))
        })
    };
    exact.or_else(of_trace).ok_or_else(|| match number {
        Some(n) => format!(
            "no record {n}: records are numbered 1 to {} in load order",
            records.len()
        ),
        None => format!("no record numbered or with id `{word}`"),
    })
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
        played.len().saturating_sub(1),
        s.next
    )
}

/// Record `r` to walk at its parameters (`params` wins when given, as the command line's
/// do in `eval`), each step seeded by the last `context` calls (1: the previous call);
/// nothing is walked yet. The message of the TS082 warning when it names no operator; a
/// record without its calls in order has no steps.
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
    let calls = r.calls.clone().unwrap_or_default();
    let targets: Vec<Option<NodeIndex>> = calls.iter().map(|c| tool_named(tk, c)).collect();
    let operator = match &r.target {
        Target::Operator(_) => Some(group.clone()),
        Target::Seeds(_) => None,
    };
    let hits = vec![None; calls.len()];
    Ok(Replayed {
        group,
        operator,
        params,
        available: available.clone(),
        walk: Arc::new(Walk {
            calls,
            targets,
            seeds,
            params,
            available,
            context: context.max(1),
        }),
        hits,
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
