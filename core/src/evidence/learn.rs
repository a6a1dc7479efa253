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
//!   `r(A, B) = (c(A, B) + 2 w(A, B)) / (n_A + 2)` (the written score worth two steps, as
//!   Call scores are fitted) and the new score `round4(r / max_B r)`: the row's best
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
    let callers = callers(tk);
    let mut c: HashMap<NodeIndex, HashMap<NodeIndex, u64>> = HashMap::new();
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
    let floors = super::floor::subgraph_floors(tk, records);
    let mut out = Vec::new();
    for (&a, &n_a) in &n {
        out.extend(fit_row(tk, a, n_a, c.get(&a), add_edges, &floors));
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
        (k as f64 + PRIOR_WEIGHT * w) / (n_a as f64 + PRIOR_WEIGHT)
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
}
