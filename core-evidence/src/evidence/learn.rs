//! `Next` scores learned from steps (the calls of records in order), for `fit` and for
//! the prior `init --traces` writes.
//!
//! - **Prior** (`init`): a tool's popularity within its group, `P(x) = u(x) / U(group)`
//!   with `u(x)` the steps whose target is `x`, scaled so the most popular tool is 1.0:
//!   `w(x) = round4(P(x) / max P)`. An edge `A -> call x` that `init` writes has score
//!   `w(x)`; besides the steps the runs show, each action gets edges to the likely tools
//!   its runs had (up to [`super::init::MAX_NEXT`] edges), so a transition the runs never
//!   showed still has the likely tools of its runs' groups, and the cut to what a run
//!   had keeps its own.
//! - **Fit**: `c(A, B)` = the steps from a tool `A` calls to a tool `B` calls, `n_A` = the
//!   steps from `A`'s tools. For each action with `n_A > 0`, over its `Next` edges (and,
//!   when adding edges, every `B` with `c(A, B) > 0`; a new edge's written score is 0):
//!   `r(A, B) = (c(A, B) + m w(A, B)) / (n_A + m)` (the written score worth `m` steps, `m`
//!   chosen by cross-validation: [`Smoothing`]; a row the plain counts predict better on
//!   the folds keeps them, `m = 0`) and the new score `round4(r / max_B r)`: the row's best
//!   successor gets 1.0, so a row with little evidence does not lose to one with much at
//!   a shared threshold. Rows with no steps stay as written; no edge is removed. A new
//!   score is at least the edge's floor ([`floor`](super::floor)), so the fitted records
//!   stay complete.
//!
//! `round4(v) = (v * 1e4).round() / 1e4`. The benchmark's Python reference
//! (`benches/bfcl/model.py`) computes the same numbers.

use std::collections::{BTreeMap, HashMap};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use super::eval::Resolved;
use crate::model::{EdgeKind, NodeKind, Toolkit};

/// The prior's weight in steps.
pub const PRIOR_WEIGHT: f64 = 2.0;

/// Rounded to four decimals, half away from zero.
pub fn round4(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}

/// The steps of records with their calls in order: (previous tool, tool called), both
/// tools of the toolkit (a step with an unknown end teaches nothing).
pub fn step_pairs(records: &[Resolved]) -> impl Iterator<Item = (NodeIndex, NodeIndex)> + '_ {
    records.iter().flat_map(|r| {
        r.ordered
            .as_deref()
            .unwrap_or_default()
            .windows(2)
            .filter_map(|w| Some((w[0]?, w[1]?)))
    })
}

/// The prior weights `w(x)` of the tools with `w(x) > 0`, by tool: popularity among the
/// steps' targets within each tool's group (`group_of`), the most popular tool 1.0.
pub fn prior(
    targets: impl IntoIterator<Item = NodeIndex>,
    group_of: impl Fn(NodeIndex) -> usize,
) -> BTreeMap<NodeIndex, f64> {
    let mut u: BTreeMap<NodeIndex, u64> = BTreeMap::new();
    for x in targets {
        *u.entry(x).or_default() += 1;
    }
    let mut per_group: HashMap<usize, u64> = HashMap::new();
    for (&x, &n) in &u {
        *per_group.entry(group_of(x)).or_default() += n;
    }
    let p: BTreeMap<NodeIndex, f64> = u
        .iter()
        .map(|(&x, &n)| (x, n as f64 / per_group[&group_of(x)] as f64))
        .collect();
    let top = p.values().copied().fold(0.0, f64::max);
    if top <= 0.0 {
        return BTreeMap::new();
    }
    p.into_iter()
        .map(|(x, v)| (x, round4(v / top)))
        .filter(|&(_, w)| w > 0.0)
        .collect()
}

/// One learned `Next` edge.
#[derive(Debug, Clone, PartialEq)]
pub struct NextFit {
    pub from: NodeIndex,
    pub to: NodeIndex,
    /// The edge; `None` for an edge the runs show and the graph lacks (added).
    pub edge: Option<EdgeIndex>,
    /// The written score (`None` for an added edge).
    pub old: Option<f64>,
    pub new: f64,
    /// Steps from a tool of `from` to a tool of `to`.
    pub steps: u64,
    /// Steps from a tool of `from`.
    pub row_steps: u64,
    /// The floor that keeps the fitted records as complete as they were (0 when none).
    pub floor: f64,
}

/// Learns `Next` scores from the steps of `records`; with `add_edges`, also the edges the
/// steps show and the graph lacks. Every edge of a row with steps is listed (changed or
/// not), sorted by (from, to) name.
///
/// No new score is below the edge's floor ([`floor`](super::floor)): with the Call floor of
/// [`fit`](super::fit::fit), `complete` never drops on the fitted records.
pub fn fit_next(tk: &Toolkit, records: &[Resolved], add_edges: bool) -> Vec<NextFit> {
    let smoothing = choose_smoothing(tk, records, add_edges);
    fit_next_with(tk, records, add_edges, &smoothing)
}

/// [`fit_next`] with the smoothing given (what [`choose_smoothing`] chose).
pub fn fit_next_with(
    tk: &Toolkit,
    records: &[Resolved],
    add_edges: bool,
    smoothing: &Smoothing,
) -> Vec<NextFit> {
    let (c, n) = counts(records, &callers(tk));
    let floors = super::floor::subgraph_floors(tk, records);
    let mut out = Vec::new();
    for (&a, &n_a) in &n {
        let m = smoothing.weight_of(a);
        out.extend(fit_row(tk, a, n_a, c.get(&a), add_edges, &floors, m));
    }
    repair(tk, records, &mut out);
    out.sort_by(|x, y| (tk.name(x.from), tk.name(x.to)).cmp(&(tk.name(y.from), tk.name(y.to))));
    out
}

/// Raises the learned scores where they would make a record with order lose completeness
/// ([`floor::repairs`](super::floor::repairs)).
fn repair(tk: &Toolkit, records: &[Resolved], fits: &mut [NextFit]) {
    if !records
        .iter()
        .any(|r| r.ordered.is_some() && !r.called.is_empty())
    {
        return;
    }
    let mut learned = tk.clone();
    apply(&mut learned, fits);
    let repairs = super::floor::repairs(tk, &learned, records);
    for f in fits {
        if let Some(&t) = f.edge.and_then(|e| repairs.get(&e)) {
            f.new = f.new.max(t);
            f.floor = f.floor.max(t);
        }
    }
}

/// One action's row: its `Next` edges (and the stepped pairs without one, when adding).
fn fit_row(
    tk: &Toolkit,
    a: NodeIndex,
    n_a: u64,
    counts: Option<&HashMap<NodeIndex, u64>>,
    add_edges: bool,
    floors: &HashMap<EdgeIndex, f64>,
    m: f64,
) -> Vec<NextFit> {
    let mut row: BTreeMap<NodeIndex, (Option<EdgeIndex>, Option<f64>, u64)> = BTreeMap::new();
    for (e, b) in tk.out_edges(a) {
        if tk.graph[e].kind == EdgeKind::Next {
            let steps = counts.and_then(|c| c.get(&b)).copied().unwrap_or(0);
            row.insert(b, (Some(e), Some(tk.graph[e].score), steps));
        }
    }
    if add_edges {
        for (&b, &k) in counts.into_iter().flatten() {
            row.entry(b).or_insert((None, None, k));
        }
    }
    let rate = |old: Option<f64>, k: u64| {
        let w = old.filter(|w| (0.0..=1.0).contains(w)).unwrap_or(0.0);
        (k as f64 + m * w) / (n_a as f64 + m)
    };
    let top = row
        .values()
        .map(|&(_, old, k)| rate(old, k))
        .fold(0.0, f64::max);
    if top <= 0.0 {
        return Vec::new();
    }
    row.into_iter()
        .map(|(b, (edge, old, k))| {
            let floor = edge.and_then(|e| floors.get(&e)).copied().unwrap_or(0.0);
            NextFit {
                from: a,
                to: b,
                edge,
                old,
                new: round4(rate(old, k) / top).max(floor),
                steps: k,
                row_steps: n_a,
                floor,
            }
        })
        .collect()
}

/// The prior weights `fit` tries, in steps (0: the plain transition counts, the fallback).
pub const WEIGHTS: [f64; 8] = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
/// The folds of the cross-validation.
pub const FOLDS: usize = 5;
/// The offer sizes whose recall the cross-validation averages: 1 to this.
pub const OFFER_SIZES: usize = 15;
/// Scores closer than this are equal (Rust and the Python reference sum in one order, but
/// a choice must not hang on the last bit).
const EPS: f64 = 1e-9;

/// How far `fit` trusts the runs: the prior weight `m` chosen by cross-validation over the
/// training runs, and the rows (source actions) that fall back to the plain counts.
///
/// The runs (records with their calls in order) are grouped by their sequence of calls, so
/// a task the records repeat (BFCL runs each task in four categories) is never on both
/// sides of a fold; the `i`-th distinct sequence, in record order, goes to fold `i mod 5`.
/// For each fold and each weight of [`WEIGHTS`], every row is fitted on the other folds'
/// steps (`r(A, B) = (c(A, B) + m w(A, B)) / (n_A + m)`, scaled to a row maximum of 1 and
/// rounded, as the fit writes it; a row without training steps stays as written) and each
/// held-out step from `A` is scored by where its called tool ranks in `A`'s row among the
/// tools the run had: the mean over offer sizes `k` = 1..15 of the hit of the first `k`
/// (tools of equal score share the places left, `s / n` for `n` tied over `s` places; a
/// called tool of score 0, which only a threshold of 0 offers, scores 0).
/// The weight with the highest total wins (ties: the one nearest 2, the former fixed
/// weight, then the smaller); then each row whose held-out steps score higher with
/// `m = 0` (the plain transition counts) than with the chosen weight uses `m = 0`. With
/// fewer than 5 distinct runs there is no cross-validation: `m = 2`, no fallback.
#[derive(Debug, Clone, PartialEq)]
pub struct Smoothing {
    /// The chosen prior weight.
    pub weight: f64,
    /// Distinct runs (sequences of calls) among the records with order.
    pub runs: usize,
    /// Folds used (0: not cross-validated).
    pub folds: usize,
    /// Held-out steps scored (over all folds).
    pub steps: u64,
    /// Each weight of [`WEIGHTS`] with its mean held-out score (empty without folds).
    pub scores: Vec<(f64, f64)>,
    /// Rows with held-out steps.
    pub rows: usize,
    /// The rows that fall back to the plain counts (`m = 0`), sorted.
    pub plain_rows: Vec<NodeIndex>,
    /// The mean held-out score of the choice (row fallbacks applied).
    pub chosen_score: Option<f64>,
    /// Per row with held-out steps: (action, steps, total score with the plain counts,
    /// total score as chosen), sorted by action.
    pub per_row: Vec<(NodeIndex, u64, f64, f64)>,
}

impl Default for Smoothing {
    fn default() -> Smoothing {
        Smoothing::fixed(0)
    }
}

impl Smoothing {
    /// No cross-validation: the former fixed weight.
    pub fn fixed(runs: usize) -> Smoothing {
        Smoothing {
            weight: PRIOR_WEIGHT,
            runs,
            folds: 0,
            steps: 0,
            scores: Vec::new(),
            rows: 0,
            plain_rows: Vec::new(),
            chosen_score: None,
            per_row: Vec::new(),
        }
    }

    /// The weight row `a` is fitted with.
    pub fn weight_of(&self, a: NodeIndex) -> f64 {
        if self.plain_rows.binary_search(&a).is_ok() {
            0.0
        } else {
            self.weight
        }
    }

    /// The mean held-out score of a weight.
    pub fn score_of(&self, m: f64) -> Option<f64> {
        self.scores.iter().find(|s| s.0 == m).map(|s| s.1)
    }
}

/// Chooses the smoothing by cross-validation over the ordered records ([`Smoothing`]).
pub fn choose_smoothing(tk: &Toolkit, records: &[Resolved], add_edges: bool) -> Smoothing {
    let ordered: Vec<&Resolved> = records.iter().filter(|r| r.ordered.is_some()).collect();
    let mut seen: HashMap<&[Option<NodeIndex>], usize> = HashMap::new();
    let mut fold_of = Vec::with_capacity(ordered.len());
    for r in &ordered {
        let key = r.ordered.as_deref().unwrap_or_default();
        let next = seen.len();
        let i = *seen.entry(key).or_insert(next);
        fold_of.push(i % FOLDS);
    }
    if seen.len() < FOLDS {
        return Smoothing::fixed(seen.len());
    }
    let callers = callers(tk);
    let tools_of = tools_of(tk);
    // Per weight: the total over steps, and per row.
    let mut total = vec![0.0; WEIGHTS.len()];
    let mut per_row: BTreeMap<NodeIndex, Vec<f64>> = BTreeMap::new();
    let mut row_steps: HashMap<NodeIndex, u64> = HashMap::new();
    let mut steps = 0u64;
    for f in 0..FOLDS {
        let train: Vec<Resolved> = ordered
            .iter()
            .zip(&fold_of)
            .filter(|(_, g)| **g != f)
            .map(|(r, _)| (*r).clone())
            .collect();
        let (c, n) = counts(&train, &callers);
        let mut rows: HashMap<(NodeIndex, usize), Row> = HashMap::new();
        for (r, _) in ordered.iter().zip(&fold_of).filter(|(_, g)| **g == f) {
            let calls = r.ordered.as_deref().unwrap_or_default();
            for w in calls.windows(2) {
                let (Some(p), Some(x)) = (w[0], w[1]) else {
                    continue;
                };
                let Some(from) = callers.get(&p) else {
                    continue;
                };
                for &a in from {
                    steps += 1;
                    *row_steps.entry(a).or_default() += 1;
                    let scores = per_row.entry(a).or_insert_with(|| vec![0.0; WEIGHTS.len()]);
                    for (i, &m) in WEIGHTS.iter().enumerate() {
                        let row = rows.entry((a, i)).or_insert_with(|| {
                            Row::new(cv_row(tk, a, c.get(&a), n.get(&a).copied(), add_edges, m))
                        });
                        let v = row.step_score(&tools_of, r.available.as_deref(), x);
                        total[i] += v;
                        scores[i] += v;
                    }
                }
            }
        }
    }
    if steps == 0 {
        return Smoothing::fixed(seen.len());
    }
    let mut best = 0;
    for i in 1..WEIGHTS.len() {
        let (a, b) = (total[i], total[best]);
        let nearer = (WEIGHTS[i] - PRIOR_WEIGHT).abs() < (WEIGHTS[best] - PRIOR_WEIGHT).abs();
        if a > b + EPS || (a >= b - EPS && nearer) {
            best = i;
        }
    }
    let plain_rows: Vec<NodeIndex> = per_row
        .iter()
        .filter(|(_, s)| s[0] > s[best] + EPS)
        .map(|(&a, _)| a)
        .collect();
    let pick = |s: &[f64]| if s[0] > s[best] + EPS { s[0] } else { s[best] };
    let chosen: f64 = per_row.values().map(|s| pick(s)).sum();
    let mean = |x: f64| x / steps as f64;
    Smoothing {
        weight: WEIGHTS[best],
        runs: seen.len(),
        folds: FOLDS,
        steps,
        scores: WEIGHTS
            .iter()
            .zip(&total)
            .map(|(&m, &t)| (m, mean(t)))
            .collect(),
        rows: per_row.len(),
        plain_rows,
        chosen_score: Some(mean(chosen)),
        per_row: per_row
            .iter()
            .map(|(&a, s)| (a, row_steps.get(&a).copied().unwrap_or(0), s[0], pick(s)))
            .collect(),
    }
}

type Counts = HashMap<NodeIndex, HashMap<NodeIndex, u64>>;

/// `c(A, B)` and `n_A` over the steps of `records`.
fn counts(
    records: &[Resolved],
    callers: &HashMap<NodeIndex, Vec<NodeIndex>>,
) -> (Counts, HashMap<NodeIndex, u64>) {
    let mut c: Counts = HashMap::new();
    let mut n: HashMap<NodeIndex, u64> = HashMap::new();
    for (p, x) in step_pairs(records) {
        let (Some(from), Some(to)) = (callers.get(&p), callers.get(&x)) else {
            continue;
        };
        for &a in from {
            *n.entry(a).or_default() += 1;
            let row = c.entry(a).or_default();
            for &b in to {
                *row.entry(b).or_default() += 1;
            }
        }
    }
    (c, n)
}

/// Row `a` as the fit would write it with weight `m` from these counts (no floors): the
/// target actions with their scores; the written row when it has no steps.
fn cv_row(
    tk: &Toolkit,
    a: NodeIndex,
    counts: Option<&HashMap<NodeIndex, u64>>,
    n_a: Option<u64>,
    add_edges: bool,
    m: f64,
) -> Vec<(NodeIndex, f64)> {
    let written = || {
        tk.out_edges(a)
            .filter(|&(e, _)| tk.graph[e].kind == EdgeKind::Next)
            .map(|(e, b)| (b, tk.graph[e].score))
            .collect()
    };
    match n_a {
        Some(n) if n > 0 => {
            let fits = fit_row(tk, a, n, counts, add_edges, &HashMap::new(), m);
            if fits.is_empty() {
                written()
            } else {
                fits.into_iter().map(|f| (f.to, f.new)).collect()
            }
        }
        _ => written(),
    }
}

/// A row of the cross-validation, with its ranking of tools once a step without an
/// `available` list has asked for it: scoring a step against the row was a pass over the
/// row (every action, once `--add-edges` fits unseen pairs) for each step, weight and fold,
/// which made `fit --add-edges` grow with the steps times the actions; from the ranking it
/// is a lookup and two binary searches.
struct Row {
    row: Vec<(NodeIndex, f64)>,
    ranked: Option<Ranked>,
}

/// Each tool's best score in a row, and those scores sorted.
struct Ranked {
    best: HashMap<NodeIndex, f64>,
    sorted: Vec<f64>,
}

impl Row {
    fn new(row: Vec<(NodeIndex, f64)>) -> Row {
        Row { row, ranked: None }
    }

    /// [`step_score`], the same value (a run's `available` list changes the ranking, and a
    /// NaN score does not sort: those score the row as it is).
    fn step_score(
        &mut self,
        tools_of: &HashMap<NodeIndex, Vec<NodeIndex>>,
        available: Option<&[NodeIndex]>,
        target: NodeIndex,
    ) -> f64 {
        if available.is_some() || self.row.iter().any(|(_, s)| s.is_nan()) {
            return step_score(&self.row, tools_of, available, target);
        }
        let ranked = self.ranked.get_or_insert_with(|| {
            let best = best_scores(&self.row, tools_of, None);
            let mut sorted: Vec<f64> = best.values().copied().collect();
            sorted.sort_by(f64::total_cmp);
            Ranked { best, sorted }
        });
        let Some(&v) = ranked.best.get(&target).filter(|&&v| v > 0.0) else {
            return 0.0;
        };
        let below_or_tied = ranked.sorted.partition_point(|&s| s <= v);
        let above = (ranked.sorted.len() - below_or_tied) as f64;
        let tied = (below_or_tied - ranked.sorted.partition_point(|&s| s < v)) as f64;
        offer_hit(above, tied)
    }
}

/// Each tool's best score in a row (a tool by its best action), cut to `available`.
fn best_scores(
    row: &[(NodeIndex, f64)],
    tools_of: &HashMap<NodeIndex, Vec<NodeIndex>>,
    available: Option<&[NodeIndex]>,
) -> HashMap<NodeIndex, f64> {
    let mut best: HashMap<NodeIndex, f64> = HashMap::new();
    for &(b, s) in row {
        for &x in tools_of.get(&b).into_iter().flatten() {
            if available.is_none_or(|av| av.binary_search(&x).is_ok()) {
                let e = best.entry(x).or_insert(s);
                *e = e.max(s);
            }
        }
    }
    best
}

/// The mean over offer sizes 1..=15 of the hit of a tool with `above` tools scored higher
/// and `tied` (itself included) scored the same.
fn offer_hit(above: f64, tied: f64) -> f64 {
    (1..=OFFER_SIZES)
        .map(|k| ((k as f64 - above) / tied).clamp(0.0, 1.0))
        .sum::<f64>()
        / OFFER_SIZES as f64
}

/// A held-out step's score in a row: the mean over offer sizes 1..=15 of the hit of the
/// first `k` tools of the row (by score, a tool by its best action), cut to `available`;
/// tied tools share the places left, and a called tool of score 0 scores 0.
fn step_score(
    row: &[(NodeIndex, f64)],
    tools_of: &HashMap<NodeIndex, Vec<NodeIndex>>,
    available: Option<&[NodeIndex]>,
    target: NodeIndex,
) -> f64 {
    let best = best_scores(row, tools_of, available);
    // A tool of score 0 is offered only by a threshold of 0, which offers every tool of
    // the row: it earns nothing, as the zero-score ties of a sparse row would otherwise
    // share places no threshold offer gives them.
    let Some(&v) = best.get(&target).filter(|&&v| v > 0.0) else {
        return 0.0;
    };
    let above = best.values().filter(|&&s| s > v).count() as f64;
    let tied = best.values().filter(|&&s| s == v).count() as f64;
    offer_hit(above, tied)
}

/// The tools each action calls.
fn tools_of(tk: &Toolkit) -> HashMap<NodeIndex, Vec<NodeIndex>> {
    let mut out: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
    for a in tk.nodes_of(NodeKind::Action) {
        for (e, x) in tk.out_edges(a) {
            if tk.graph[e].kind == EdgeKind::Call {
                out.entry(a).or_default().push(x);
            }
        }
    }
    out
}

/// The learned scores applied to a copy of the toolkit's graph (added edges added).
pub fn apply(tk: &mut Toolkit, fits: &[NextFit]) {
    for f in fits {
        match f.edge.and_then(|e| tk.graph.edge_weight_mut(e)) {
            Some(edge) => edge.score = f.new,
            None => {
                tk.add_edge(f.from, f.to, f.new, None);
            }
        }
    }
}

/// The actions calling each tool-like node.
fn callers(tk: &Toolkit) -> HashMap<NodeIndex, Vec<NodeIndex>> {
    let mut out: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
    for a in tk.nodes_of(NodeKind::Action) {
        for (e, x) in tk.out_edges(a) {
            if tk.graph[e].kind == EdgeKind::Call {
                out.entry(x).or_default().push(a);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Record;
    use crate::model::Node;

    /// A held-out step ranks its called tool among the row's scores; a tool of score 0
    /// earns nothing (only a threshold of 0 offers it), however few tools tie with it.
    #[test]
    fn a_called_tool_of_score_zero_scores_nothing() {
        let tk = kit(&["a", "b", "c"]);
        let (a, b, c) = (
            ix(&tk, NodeKind::Action, "call a"),
            ix(&tk, NodeKind::Action, "call b"),
            ix(&tk, NodeKind::Action, "call c"),
        );
        let tools = tools_of(&tk);
        let tool = |n: &str| ix(&tk, NodeKind::Tool, n);
        // Two zeros tie for the places after `a`: the old measure gave each 0.93.
        let row = [(a, 1.0), (b, 0.0), (c, 0.0)];
        assert_eq!(step_score(&row, &tools, None, tool("b")), 0.0);
        // First of three: a hit at every offer size.
        assert_eq!(step_score(&row, &tools, None, tool("a")), 1.0);
        // Two tied at 0.5 for the first place: half a hit at size 1, then whole.
        let row = [(a, 0.5), (b, 0.5), (c, 0.1)];
        let v = step_score(&row, &tools, None, tool("b"));
        assert!((v - (0.5 + 14.0) / 15.0).abs() < 1e-12, "{v}");
    }

    /// One action per tool (`call X` calls X), no Next edges yet.
    fn kit(tools: &[&str]) -> Toolkit {
        let mut tk = Toolkit::new();
        for t in tools {
            tk.add_action(Node::new(NodeKind::Action, format!("call {t}")), &[], &[]);
            tk.add_tool(
                Node::new(NodeKind::Tool, *t),
                &[(&format!("call {t}"), 1.0)],
            );
        }
        tk
    }

    fn ix(tk: &Toolkit, kind: NodeKind, name: &str) -> NodeIndex {
        tk.find(kind, name).unwrap()
    }

    #[test]
    fn prior_is_popularity_within_the_group() {
        let tk = kit(&["a", "b", "c", "d"]);
        let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| ix(&tk, NodeKind::Tool, n));
        // Group 0: a, b; group 1: c, d. Targets: a 3, b 1, c 1 (d never).
        let group = |x: NodeIndex| usize::from(x == c || x == d);
        let w = prior([a, a, a, b, c], group);
        // P(a) = 0.75, P(b) = 0.25, P(c) = 1.0: c is the top, then a 0.75, b 0.25.
        assert_eq!(w.get(&c), Some(&1.0));
        assert_eq!(w.get(&a), Some(&0.75));
        assert_eq!(w.get(&b), Some(&0.25));
        assert_eq!(w.get(&d), None);
        assert!(prior([], group).is_empty());
    }

    #[test]
    fn fit_smooths_each_row_toward_what_is_written_and_scales_it_to_one() {
        let mut tk = kit(&["a", "b", "c"]);
        let [ca, cb, cc] = ["call a", "call b", "call c"].map(|n| ix(&tk, NodeKind::Action, n));
        tk.add_edge(ca, cb, 0.5, None);
        tk.add_edge(ca, cc, 0.5, None);
        tk.add_edge(cb, cc, 0.3, None);
        // Steps: a->b twice, a->c once, a->a once (no edge), b->? none; an unknown end.
        let recs = vec![
            Record::ordered("op", &["a", "b", "x", "a", "c"]),
            Record::ordered("op", &["a", "b"]),
            Record::ordered("op", &["a", "a"]),
            Record::operator("op", &["b", "c"]),
        ];
        tk.operators
            .push(crate::model::Operator::new("op", vec!["call a".into()]));
        let opts = crate::evidence::eval::EvalOptions::default();
        let (recs, _) = crate::evidence::eval::resolve(&tk, &recs, &opts);
        let fits = fit_next(&tk, &recs, false);
        // Row a: n = 4; r(b) = (2 + 1) / 6, r(c) = (1 + 1) / 6: b 1.0, c 0.6667.
        let got: Vec<(&str, &str, Option<f64>, f64, u64)> = fits
            .iter()
            .map(|f| (tk.name(f.from), tk.name(f.to), f.old, f.new, f.steps))
            .collect();
        assert_eq!(
            got,
            vec![
                ("call a", "call b", Some(0.5), 1.0, 2),
                ("call a", "call c", Some(0.5), 0.6667, 1),
            ]
        );
        assert!(fits.iter().all(|f| f.row_steps == 4));
        // Adding edges: a->a appears with r = 1/6, scaled 0.3333.
        let added = fit_next(&tk, &recs, true);
        let aa = added.iter().find(|f| f.to == ca).unwrap();
        assert_eq!((aa.edge, aa.old, aa.new), (None, None, 0.3333));
        assert_eq!(added.len(), 3);
    }

    #[test]
    fn records_without_order_keep_their_recommendation() {
        let mut tk = kit(&["a", "b", "c"]);
        let [ca, cb, cc] = ["call a", "call b", "call c"].map(|n| ix(&tk, NodeKind::Action, n));
        tk.add_edge(ca, cb, 0.5, None);
        tk.add_edge(ca, cc, 0.5, None);
        let mut op = crate::model::Operator::new("op", vec!["call a".into()]);
        op.hops = 1;
        tk.operators.push(op);
        let mut recs: Vec<Record> = (0..4).map(|_| Record::ordered("op", &["a", "b"])).collect();
        let opts = crate::evidence::eval::EvalOptions::default();
        let (ordered, _) = crate::evidence::eval::resolve(&tk, &recs, &opts);
        let c_of = |fits: &[NextFit]| fits.iter().find(|f| f.to == cc).map(|f| (f.new, f.floor));
        // Steps alone: r(c) = 1/6 against r(b) = 5/6, so c drops to 0.2.
        assert_eq!(c_of(&fit_next(&tk, &ordered, false)), Some((0.2, 0.0)));
        // A record without order, at threshold 0.5 with hops 1, was offered c through a->c.
        recs.push(Record::operator("op", &["c"]));
        let (mixed, _) = crate::evidence::eval::resolve(&tk, &recs, &opts);
        assert_eq!(c_of(&fit_next(&tk, &mixed, false)), Some((0.5, 0.5)));
        let _ = cb;
    }

    mod cv {
        use super::*;
        use proptest::prelude::*;

        /// `n` tools in two groups, one action each, and the prior's Next edge from every
        /// action to every action at a score of the given list (cycled).
        fn prior_kit(n: usize, scores: &[f64]) -> Toolkit {
            let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut tk = kit(&refs);
            let actions: Vec<NodeIndex> = names
                .iter()
                .map(|t| ix(&tk, NodeKind::Action, &format!("call {t}")))
                .collect();
            let mut k = 0;
            for &a in &actions {
                for &b in &actions {
                    tk.add_edge(a, b, scores[k % scores.len()], None);
                    k += 1;
                }
            }
            tk.operators.push(crate::model::Operator::new(
                "op",
                vec![format!("call {}", names[0])],
            ));
            tk
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]

            /// fit's chosen smoothing never scores below the plain transition counts on
            /// the held-out folds: overall, and row by row (where the counts do better,
            /// the row falls back to them).
            #[test]
            fn chosen_smoothing_never_loses_to_the_plain_counts_on_held_out_folds(
                n in 3usize..7,
                scores in proptest::collection::vec(0.0f64..=1.0, 1..9),
                runs in proptest::collection::vec(
                    proptest::collection::vec(0usize..7, 2..9), 5..30),
                available in proptest::collection::vec(proptest::bool::ANY, 7),
            ) {
                let tk = prior_kit(n, &scores);
                let records: Vec<Record> = runs
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        let calls: Vec<String> = r.iter().map(|&c| format!("t{}", c % n)).collect();
                        let refs: Vec<&str> = calls.iter().map(String::as_str).collect();
                        let mut rec = Record::ordered("op", &refs);
                        // Every other run says what it had: its own tools and a random few.
                        if i % 2 == 1 {
                            let mut av: Vec<String> = calls.clone();
                            av.extend((0..n).filter(|&t| available[t]).map(|t| format!("t{t}")));
                            rec.available = Some(av);
                        }
                        rec
                    })
                    .collect();
                let opts = crate::evidence::eval::EvalOptions::default();
                let (rs, _) = crate::evidence::eval::resolve(&tk, &records, &opts);
                let s = choose_smoothing(&tk, &rs, false);
                prop_assume!(s.folds > 0);
                let plain = s.score_of(0.0).unwrap_or(f64::NAN);
                let chosen = s.chosen_score.unwrap_or(f64::NAN);
                prop_assert!(chosen >= plain - 1e-9, "chosen {chosen} < plain {plain}: {s:?}");
                prop_assert!(
                    chosen >= s.score_of(s.weight).unwrap_or(f64::NAN) - 1e-9,
                    "the row fallbacks lowered the score: {s:?}"
                );
                for &(a, k, p, c) in &s.per_row {
                    prop_assert!(k > 0);
                    prop_assert!(c >= p - 1e-9, "row {} chose {c} < plain {p}", tk.name(a));
                    let falls_back = s.plain_rows.contains(&a);
                    prop_assert_eq!(falls_back, s.weight_of(a) == 0.0 && s.weight != 0.0 || falls_back);
                }
                // The fitted rows follow the choice: a fallback row is the plain counts
                // scaled to 1 (an edge never stepped from it gets 0).
                let fits = fit_next_with(&tk, &rs, false, &s);
                for f in fits.iter().filter(|f| s.plain_rows.contains(&f.from)) {
                    if f.steps == 0 {
                        prop_assert_eq!(f.new, f.floor);
                    }
                }
            }
        }

        #[test]
        fn too_few_distinct_runs_keep_the_fixed_weight() {
            let tk = prior_kit(3, &[0.5]);
            // Ten records, four distinct sequences: no cross-validation.
            let records: Vec<Record> = (0..10)
                .map(|i| Record::ordered("op", &[["t0", "t1", "t2", "t0"][i % 4], "t1"]))
                .collect();
            let opts = crate::evidence::eval::EvalOptions::default();
            let (rs, _) = crate::evidence::eval::resolve(&tk, &records, &opts);
            let s = choose_smoothing(&tk, &rs, false);
            assert_eq!((s.folds, s.weight, s.runs), (0, PRIOR_WEIGHT, 3));
        }

        #[test]
        fn a_row_the_counts_predict_keeps_them() {
            // From t0 the runs always call t1, which the prior scores 0; the prior puts t2
            // first from every action. Any weight above 1 ranks t2 before t1 in row t0 on
            // the held-out steps (one training step from t0 a fold): the row then falls
            // back to the counts, so each of its two held-out steps scores 1.
            let names = ["t0", "t1", "t2", "t3", "t4", "t5"];
            let mut tk = kit(&names);
            let acts: Vec<NodeIndex> = names
                .iter()
                .map(|t| ix(&tk, NodeKind::Action, &format!("call {t}")))
                .collect();
            for &a in &acts {
                for (j, &b) in acts.iter().enumerate() {
                    let w = match j {
                        1 => 0.0,
                        2 => 1.0,
                        _ => 0.1,
                    };
                    tk.add_edge(a, b, w, None);
                }
            }
            tk.operators
                .push(crate::model::Operator::new("op", vec!["call t0".into()]));
            let mut runs: Vec<Vec<&str>> = vec![vec!["t0", "t1", "t3"], vec!["t0", "t1", "t4"]];
            for i in 0..8 {
                let mut r = vec!["t5", "t2"];
                r.extend(std::iter::repeat_n("t4", i));
                runs.push(r);
            }
            let records: Vec<Record> = runs.iter().map(|r| Record::ordered("op", r)).collect();
            let opts = crate::evidence::eval::EvalOptions::default();
            let (rs, _) = crate::evidence::eval::resolve(&tk, &records, &opts);
            let s = choose_smoothing(&tk, &rs, false);
            assert_eq!(s.folds, FOLDS, "{s:?}");
            let row = s.per_row.iter().find(|r| r.0 == acts[0]).expect("row t0");
            assert_eq!((row.1, row.2, row.3), (2, 2.0, 2.0), "{s:?}");
            if s.weight > 1.0 {
                assert!(s.plain_rows.contains(&acts[0]), "{s:?}");
            }
        }
    }

    /// `fit` and `:fit` make their edits from `Changes`: unchanged scores are left out,
    /// the score edits come first (one run a score batch takes), then the added edges;
    /// the edits give the toolkit `Changes::applied` gives.
    #[test]
    fn changes_list_score_edits_then_added_edges() {
        use crate::edit::Edit;
        use crate::evidence::fit::Changes;
        let mut tk = kit(&["a", "b", "c"]);
        let [ca, cb, cc] = ["call a", "call b", "call c"].map(|n| ix(&tk, NodeKind::Action, n));
        tk.add_edge(ca, cb, 1.0, None);
        tk.add_edge(ca, cc, 0.5, None);
        tk.operators
            .push(crate::model::Operator::new("op", vec!["call a".into()]));
        let recs = vec![
            Record::ordered("op", &["a", "b", "a", "c", "a", "b"]),
            Record::ordered("op", &["a", "a"]),
        ];
        let opts = crate::evidence::eval::EvalOptions::default();
        let (recs, _) = crate::evidence::eval::resolve(&tk, &recs, &opts);
        let changes = Changes::new(&tk, &recs, true);
        assert!(
            changes.calls.is_empty(),
            "one tool an action: Call stays 1.0"
        );
        assert!(changes.next.iter().all(|f| f.old != Some(f.new)));
        let edits = changes.edits(&tk);
        let kinds: Vec<(&str, &str, &str)> = edits
            .iter()
            .map(|e| match e {
                Edit::SetScore { from, to, .. } => ("score", from.as_str(), to.as_str()),
                Edit::AddEdge { from, to, .. } => ("add", from.as_str(), to.as_str()),
                _ => ("other", "", ""),
            })
            .collect();
        let first_add = kinds
            .iter()
            .position(|k| k.0 == "add")
            .expect("an added edge");
        assert!(kinds[first_add..].iter().all(|k| k.0 == "add"), "{kinds:?}");
        assert!(kinds.contains(&("add", "call a", "call a")), "{kinds:?}");
        assert!(kinds.contains(&("add", "call b", "call a")), "{kinds:?}");
        let after = changes.applied(&tk);
        assert_eq!(
            after.get_score(cb, ca),
            changes.next.iter().find(|f| f.from == cb).unwrap().new
        );
        let _ = cc;
        // Smoothing moves scores again on a second fit, but every edge exists now.
        let again = Changes::new(&after, &recs, true);
        assert!(
            again.next.iter().all(|f| f.edge.is_some()),
            "edges added twice"
        );
    }

    /// A row's ranking, made once, scores every step as the pass over the row does: ties
    /// (several actions at one score, a tool called by several actions), zeros of both
    /// signs, tools no action of the row calls, and rows holding a NaN (scored as they are).
    #[test]
    fn a_ranked_row_scores_steps_as_the_pass_over_the_row() {
        let n = NodeIndex::new;
        let mut tools_of: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
        // Actions 0..12 call tools 100.. (action i calls tools i % 5 and i % 7 + 3).
        for a in 0..12 {
            tools_of.insert(n(a), vec![n(100 + a % 5), n(100 + a % 7 + 3)]);
        }
        let values = [0.0, -0.0, 0.25, 0.5, 0.5, 1.0, 0.75, 0.25];
        let mut state = 7u64;
        let mut compared = 0;
        for round in 0..200 {
            let len = 1 + round % 12;
            let mut row: Vec<(NodeIndex, f64)> = (0..len)
                .map(|a| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (n(a), values[(state >> 33) as usize % values.len()])
                })
                .collect();
            if round % 50 == 49 {
                row[0].1 = f64::NAN;
            }
            let mut ranked = Row::new(row.clone());
            for t in 100..112 {
                let want = step_score(&row, &tools_of, None, n(t));
                let got = ranked.step_score(&tools_of, None, n(t));
                assert!(
                    want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                    "tool {t} in {row:?}: {want} != {got}"
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 200 * 12);
    }
}
