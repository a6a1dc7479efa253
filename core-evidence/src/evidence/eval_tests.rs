//! `eval` on a hand-made toolkit with numbers worked out by hand, and against a brute
//! force (a recommendation at every edge score) on random toolkits and traces.

use std::collections::BTreeSet;

use petgraph::stable_graph::NodeIndex;
use proptest::prelude::*;

use super::eval::{EvalOptions, Report, Stats, StepStats, Suggested, evaluate, resolve};
use super::{CostFn, Record, Target};
use crate::model::{Node, NodeKind, Operator, Toolkit};
use crate::recommend::{Params, ToolFilters, offered_tools, recommend};

/// a -next 0.8-> b -next 0.4-> c; a calls X 0.9 and W 0.3, b calls Y 0.6, c calls Z 0.7.
/// Operator `op`: seeds [a], threshold 0.5, hops 1.
pub(crate) fn toolkit() -> Toolkit {
    let mut tk = Toolkit::new();
    for a in ["a", "b", "c"] {
        tk.add_action(Node::new(NodeKind::Action, a), &[], &[]);
    }
    tk.add_action(Node::new(NodeKind::Action, "a"), &[("b", 0.8)], &[]);
    tk.add_action(Node::new(NodeKind::Action, "b"), &[("c", 0.4)], &[]);
    for (t, a, s) in [
        ("X", "a", 0.9),
        ("W", "a", 0.3),
        ("Y", "b", 0.6),
        ("Z", "c", 0.7),
    ] {
        tk.add_tool(Node::new(NodeKind::Tool, t), &[(a, s)]);
    }
    let mut op = Operator::new("op", vec!["a".into()]);
    op.threshold = 0.5;
    op.hops = 1;
    tk.operators.push(op);
    tk
}

/// Tokens by name: X 10, Y 20, Z 40, W 80.
fn cost(tk: &Toolkit) -> impl Fn(NodeIndex) -> u64 + '_ {
    |ix| match tk.name(ix) {
        "X" => 10,
        "Y" => 20,
        "Z" => 40,
        "W" => 80,
        other => 3 + other.len() as u64 * (ix.index() as u64 % 5 + 1),
    }
}

fn records() -> Vec<Record> {
    let mut seeds = Record::operator("", &["Z", "W"]);
    seeds.target = Target::Seeds(vec!["c".into()]);
    seeds.threshold = Some(0.6);
    seeds.hops = Some(0);
    vec![
        Record::operator("op", &["X"]),
        Record::operator("op", &["X", "Z", "nope", "nope"]),
        Record::operator("op", &[]),
        Record::operator("op", &["Y", "Y"]),
        seeds,
    ]
}

fn run(tk: &Toolkit, records: &[Record], opts: &EvalOptions) -> Report {
    let (resolved, diags) = resolve(tk, records, opts);
    assert!(diags.is_empty(), "{diags:?}");
    evaluate(tk, &resolved, opts, &CostFn(cost(tk)))
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        (None, None) => true,
        _ => false,
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn numbers_worked_out_by_hand() {
    let tk = toolkit();
    let r = run(&tk, &records(), &EvalOptions::default());
    let names: Vec<&str> = r.operators.iter().map(|g| g.operator.as_str()).collect();
    assert_eq!(names, ["op", "seeds:c"]);
    // op at 0.5, hops 1: R = {X, Y} (30 tokens) for every record.
    let op = &r.operators[0];
    assert_eq!((op.threshold, op.hops), (Some(0.5), Some(1)));
    let s = &op.stats;
    assert_eq!((s.records, s.with_calls, s.unknown_calls), (4, 3, 1));
    assert!(close(s.recall, Some((1.0 + 0.5 + 1.0) / 3.0)));
    assert!(close(s.complete, Some(2.0 / 3.0)));
    assert!(close(s.precision, Some(0.5)));
    assert!(close(s.offered_tools, Some(2.0)));
    assert!(close(s.tokens, Some(30.0)));
    assert!(s.never_called.is_empty());
    assert_eq!(s.called_not_offered, strings(&["Z"]));
    // seeds:c at 0.6, hops 0: R = {Z}; C = {Z, W}.
    let c = &r.operators[1].stats;
    assert_eq!((c.records, c.with_calls), (1, 1));
    assert!(close(c.recall, Some(0.5)) && close(c.complete, Some(0.0)));
    assert!(close(c.precision, Some(1.0)) && close(c.tokens, Some(40.0)));
    assert_eq!(c.called_not_offered, strings(&["W"]));
    // Pooled, not a mean of the operators.
    let o = &r.overall;
    assert_eq!((o.records, o.with_calls, o.unknown_calls), (5, 4, 1));
    assert!(close(o.recall, Some(0.75)) && close(o.complete, Some(0.5)));
    assert!(close(o.precision, Some(0.625)));
    assert!(close(o.offered_tools, Some(1.8)) && close(o.tokens, Some(32.0)));
    assert_eq!(o.called_not_offered, strings(&["W", "Z"]));
    assert!(o.never_called.is_empty());
}

#[test]
fn flags_win_over_records_and_operators() {
    let tk = toolkit();
    let opts = EvalOptions {
        threshold: Some(0.95),
        hops: Some(0),
        ..EvalOptions::default()
    };
    let r = run(&tk, &records(), &opts);
    // Nothing passes 0.95: every record offers nothing.
    assert_eq!(r.operators[0].threshold, Some(0.95));
    assert!(close(r.overall.tokens, Some(0.0)));
    assert!(close(r.overall.recall, Some(0.0)));
    assert!(close(r.overall.precision, Some(0.0)));
    assert_eq!(r.overall.never_called, Vec::<String>::new());
}

#[test]
fn never_called_and_filters() {
    let mut tk = toolkit();
    let y = tk.find(NodeKind::Tool, "Y").unwrap();
    tk.node_mut(y).meta.as_mut().unwrap().enabled = false;
    let recs = vec![Record::operator("op", &["X"])];
    let plain = run(&tk, &recs, &EvalOptions::default());
    assert_eq!(plain.overall.never_called, strings(&["Y"]));
    let opts = EvalOptions {
        filters: Some(ToolFilters::default()),
        ..EvalOptions::default()
    };
    let filtered = run(&tk, &recs, &opts);
    assert!(filtered.overall.never_called.is_empty());
    assert!(close(filtered.overall.precision, Some(1.0)));
    assert!(close(filtered.overall.tokens, Some(10.0)));
}

fn step(threshold: f64, recall: f64, complete: f64, offered: f64, tokens: f64) -> StepStats {
    StepStats {
        threshold,
        recall: Some(recall),
        complete: Some(complete),
        offered_tools: offered,
        tokens,
    }
}

#[test]
fn sweep_steps_and_suggestion_by_hand() {
    let tk = toolkit();
    let opts = EvalOptions {
        sweep: true,
        ..EvalOptions::default()
    };
    let r = run(&tk, &records(), &opts);
    let op = &r.operators[0];
    // At hops 1 the tools' critical values are X 0.9, Y min(0.8, 0.6) = 0.6, W 0.3; c (and
    // so Z) needs two hops. Calls: {X}, {X, Z}, {}, {Y}.
    let want = [
        step(0.9, 0.5, 1.0 / 3.0, 1.0, 10.0),
        step(0.6, 2.5 / 3.0, 2.0 / 3.0, 2.0, 30.0),
        step(0.3, 2.5 / 3.0, 2.0 / 3.0, 3.0, 110.0),
    ];
    let steps = op.steps.as_ref().unwrap();
    assert_eq!(steps.len(), want.len(), "{steps:?}");
    for (got, want) in steps.iter().zip(&want) {
        assert_eq!(got.threshold, want.threshold);
        assert!(close(got.recall, want.recall) && close(got.complete, want.complete));
        assert_eq!(
            (got.offered_tools, got.tokens),
            (want.offered_tools, want.tokens)
        );
    }
    // Complete needs Z: hops 2 at 0.4 gives {X, Y, Z} = 70 tokens; hops 3 ties and loses.
    assert_eq!(
        op.suggested,
        Some(Suggested {
            threshold: 0.4,
            hops: 2,
            complete: 1.0,
            tokens: 70.0,
            criterion: crate::evidence::criterion::Criterion::Complete(1.0),
            step_recall: None,
            step_tokens: None,
        })
    );
    // seeds:c never reaches W: no suggestion.
    assert_eq!(r.operators[1].suggested, None);
    // Asking for 0.6: hops 1 at 0.6 (30 tokens) ties with hops 2 and 3; fewer hops wins.
    let lax = EvalOptions {
        min_complete: Some(0.6),
        ..opts
    };
    let r = run(&tk, &records(), &lax);
    let s = r.operators[0].suggested.clone().unwrap();
    assert_eq!((s.threshold, s.hops, s.tokens), (0.6, 1, 30.0));
    assert!((s.complete - 2.0 / 3.0).abs() < 1e-12);
}

// ---- Brute force -------------------------------------------------------------------

/// One record's offer by `recommend` itself, a tool once per function sent
/// (`copies_sent`, the count `recommend --format json` gives as `functions_sent`).
fn offer(tk: &Toolkit, seeds: &[NodeIndex], p: Params, f: Option<&ToolFilters>) -> Vec<NodeIndex> {
    let rec = recommend(tk, seeds, p);
    let tools = match f {
        Some(f) => offered_tools(tk, &rec, f),
        None => rec.tools.clone(),
    };
    assert_eq!(
        tools
            .iter()
            .map(|&t| tk.copies_sent(t, &rec.actions, p.threshold) as usize)
            .sum::<usize>(),
        crate::recommend::functions_sent(tk, &rec, &tools, p.threshold)
    );
    let mut v: Vec<NodeIndex> = tools
        .iter()
        .flat_map(|&t| {
            std::iter::repeat_n(t, tk.copies_sent(t, &rec.actions, p.threshold) as usize)
        })
        .collect();
    v.sort();
    v
}

/// Stats computed record by record, straight from the definitions.
fn brute_stats(tk: &Toolkit, rows: &[(Vec<NodeIndex>, Vec<NodeIndex>, usize)]) -> Stats {
    let cost = cost(tk);
    let calls: Vec<_> = rows.iter().filter(|r| !r.1.is_empty()).collect();
    let mean = |xs: Vec<f64>, n: usize| (n > 0).then(|| xs.iter().sum::<f64>() / n as f64);
    let hits = |r: &(Vec<NodeIndex>, Vec<NodeIndex>, usize)| {
        r.1.iter().filter(|c| r.0.contains(c)).count()
    };
    let names = |s: BTreeSet<NodeIndex>| {
        let mut v: Vec<String> = s.into_iter().map(|i| tk.name(i).to_string()).collect();
        v.sort();
        v
    };
    let offered: BTreeSet<NodeIndex> = rows.iter().flat_map(|r| r.0.clone()).collect();
    let called: BTreeSet<NodeIndex> = rows.iter().flat_map(|r| r.1.clone()).collect();
    let missed: BTreeSet<NodeIndex> = rows
        .iter()
        .flat_map(|r| {
            r.1.iter()
                .filter(|c| !r.0.contains(c))
                .copied()
                .collect::<Vec<_>>()
        })
        .collect();
    Stats {
        records: rows.len(),
        with_calls: calls.len(),
        recall: mean(
            calls
                .iter()
                .map(|r| hits(r) as f64 / r.1.len() as f64)
                .collect(),
            calls.len(),
        ),
        complete: mean(
            calls
                .iter()
                .map(|r| f64::from(u8::from(hits(r) == r.1.len())))
                .collect(),
            calls.len(),
        ),
        precision: mean(
            calls
                .iter()
                .map(|r| {
                    // Over the distinct tools offered, not the functions sent.
                    let distinct: BTreeSet<&NodeIndex> = r.0.iter().collect();
                    if distinct.is_empty() {
                        0.0
                    } else {
                        hits(r) as f64 / distinct.len() as f64
                    }
                })
                .collect(),
            calls.len(),
        ),
        offered_tools: mean(rows.iter().map(|r| r.0.len() as f64).collect(), rows.len()),
        tokens: mean(
            rows.iter()
                .map(|r| r.0.iter().map(|&t| cost(t)).sum::<u64>() as f64)
                .collect(),
            rows.len(),
        ),
        unknown_calls: rows.iter().map(|r| r.2).sum(),
        never_called: names(offered.difference(&called).copied().collect()),
        called_not_offered: names(missed),
    }
}

fn same_stats(a: &Stats, b: &Stats) -> bool {
    a.records == b.records
        && a.with_calls == b.with_calls
        && close(a.recall, b.recall)
        && close(a.complete, b.complete)
        && close(a.precision, b.precision)
        && close(a.offered_tools, b.offered_tools)
        && close(a.tokens, b.tokens)
        && a.unknown_calls == b.unknown_calls
        && a.never_called == b.never_called
        && a.called_not_offered == b.called_not_offered
}

/// Brute-force steps: a recommendation at every distinct edge score, highest first, kept
/// where some record's offer changed.
fn brute_steps(
    tk: &Toolkit,
    recs: &[(Vec<NodeIndex>, u32, Vec<NodeIndex>)],
    f: Option<&ToolFilters>,
) -> Vec<StepStats> {
    let mut scores: Vec<f64> = tk.graph.edge_indices().map(|e| tk.graph[e].score).collect();
    scores.sort_by(|a, b| b.total_cmp(a));
    scores.dedup();
    let mut prev: Vec<Vec<NodeIndex>> = vec![Vec::new(); recs.len()];
    let mut out = Vec::new();
    for t in scores {
        let now: Vec<Vec<NodeIndex>> = recs
            .iter()
            .map(|(s, h, _)| {
                offer(
                    tk,
                    s,
                    Params {
                        threshold: t,
                        hops: *h,
                    },
                    f,
                )
            })
            .collect();
        if now == prev {
            continue;
        }
        let rows: Vec<_> = now
            .iter()
            .zip(recs)
            .map(|(o, r)| (o.clone(), r.2.clone(), 0))
            .collect();
        let s = brute_stats(tk, &rows);
        out.push(StepStats {
            threshold: t,
            recall: s.recall,
            complete: s.complete,
            offered_tools: s.offered_tools.unwrap_or(0.0),
            tokens: s.tokens.unwrap_or(0.0),
        });
        prev = now;
    }
    out
}

const SCORES: [f64; 5] = [0.2, 0.4, 0.5, 0.7, 0.9];

prop_compose! {
    pub(crate) fn arb_case()(
        nexts in prop::collection::vec((0..5usize, 0..5usize, 0..5usize), 0..10),
        calls in prop::collection::vec((0..5usize, 0..5usize, 0..5usize), 1..10),
        disabled in prop::collection::vec(any::<bool>(), 5),
        ops in prop::collection::vec((prop::collection::vec(0..5usize, 1..3), 0..5usize, 0..3u32), 1..3),
        recs in prop::collection::vec((0..3usize, prop::collection::vec(0..7usize, 0..4)), 0..12),
        filtered in any::<bool>(),
        places in prop::option::of(prop::collection::vec(1..4u32, 5)),
    ) -> (Toolkit, Vec<Record>, bool) {
        let mut tk = Toolkit::new();
        for a in 0..5 {
            tk.add_action(Node::new(NodeKind::Action, format!("a{a}")), &[], &[]);
        }
        for (u, v, s) in nexts {
            tk.add_action(Node::new(NodeKind::Action, format!("a{u}")), &[(&format!("a{v}"), SCORES[s])], &[]);
        }
        for (a, t, s) in calls {
            tk.add_tool(Node::new(NodeKind::Tool, format!("T{t}")), &[(&format!("a{a}"), SCORES[s])]);
        }
        // Some: a Chat2Graph config, each action in that many `toolkit:` chain places.
        tk.chain_places = places.map(|p| {
            p.iter().enumerate().map(|(a, &n)| (format!("a{a}"), n)).collect()
        });
        for (t, off) in disabled.iter().enumerate() {
            if let Some(ix) = tk.find(NodeKind::Tool, &format!("T{t}"))
                && let Some(m) = tk.node_mut(ix).meta.as_mut()
            {
                m.enabled = !off;
            }
        }
        for (i, (seeds, t, h)) in ops.iter().enumerate() {
            let mut op = Operator::new(format!("op{i}"), seeds.iter().map(|s| format!("a{s}")).collect());
            op.threshold = SCORES[*t];
            op.hops = *h;
            tk.operators.push(op);
        }
        let n_ops = tk.operators.len();
        let records = recs
            .into_iter()
            .map(|(op, called)| {
                let called: Vec<String> = called.iter().map(|c| format!("T{c}")).collect();
                let called: Vec<&str> = called.iter().map(String::as_str).collect();
                Record::operator(&format!("op{}", op % n_ops), &called)
            })
            .collect();
        (tk, records, filtered)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn eval_agrees_with_brute_force((tk, records, filtered) in arb_case()) {
        let filters = filtered.then(ToolFilters::default);
        let opts = EvalOptions { sweep: true, filters: filters.clone(), ..EvalOptions::default() };
        let (resolved, _) = resolve(&tk, &records, &opts);
        let report = evaluate(&tk, &resolved, &opts, &CostFn(cost(&tk)));
        let mut all_rows = Vec::new();
        for g in &report.operators {
            let op = tk.operator(&g.operator).unwrap();
            let (seeds, _) = crate::recommend::resolve_seeds(&tk, &op.actions);
            let p = Params { threshold: op.threshold, hops: op.hops };
            let mut rows = Vec::new();
            let mut sweep_recs = Vec::new();
            for (i, r) in resolved.iter().enumerate().filter(|(_, r)| r.group == g.operator) {
                // Every record resolves (all operators exist), so indices line up.
                let unknown: BTreeSet<&String> = records[i]
                    .called
                    .iter()
                    .filter(|c| tk.find(NodeKind::Tool, c).is_none())
                    .collect();
                let unknown = unknown.len();
                let called: BTreeSet<NodeIndex> = records[i]
                    .called
                    .iter()
                    .filter_map(|c| tk.find(NodeKind::Tool, c))
                    .collect();
                let called: Vec<NodeIndex> = called.into_iter().collect();
                prop_assert_eq!(&called, &r.called);
                rows.push((offer(&tk, &seeds, p, filters.as_ref()), called.clone(), unknown));
                sweep_recs.push((seeds.clone(), op.hops, called));
            }
            all_rows.extend(rows.clone());
            let want = brute_stats(&tk, &rows);
            prop_assert!(same_stats(&g.stats, &want), "{:?}\n{:?}", g.stats, want);
            let steps = g.steps.as_ref().unwrap();
            let want_steps = brute_steps(&tk, &sweep_recs, filters.as_ref());
            prop_assert_eq!(steps.len(), want_steps.len(), "{:?}\n{:?}", steps, want_steps);
            for (a, b) in steps.iter().zip(&want_steps) {
                prop_assert_eq!(a.threshold, b.threshold);
                prop_assert!(close(a.recall, b.recall) && close(a.complete, b.complete));
                prop_assert!((a.offered_tools - b.offered_tools).abs() < 1e-9);
                prop_assert!((a.tokens - b.tokens).abs() < 1e-9);
            }
            // The suggestion: the best over hops 0 to op.hops + 2 of the brute steps.
            let mut best: Option<(f64, f64, f64, u32)> = None;
            for h in 0..=op.hops + 2 {
                let recs_h: Vec<_> = sweep_recs.iter().map(|(s, _, c)| (s.clone(), h, c.clone())).collect();
                for s in brute_steps(&tk, &recs_h, filters.as_ref()) {
                    if s.complete.is_some_and(|c| c >= 1.0) {
                        let key = (s.tokens, s.offered_tools, -s.threshold, h);
                        if best.is_none_or(|b| key.partial_cmp(&b) == Some(std::cmp::Ordering::Less)) {
                            best = Some(key);
                        }
                    }
                }
            }
            let got = g.suggested.as_ref().map(|s| (s.tokens, s.threshold, s.hops));
            prop_assert_eq!(got, best.map(|b| (b.0, -b.2, b.3)));
        }
        prop_assert!(same_stats(&report.overall, &brute_stats(&tk, &all_rows)));
    }
}

/// A trace record naming its operator by anchor, as the navigator shows it (`&op_anchor`),
/// is grouped under the operator's name, like one naming it by name.
#[test]
fn a_record_names_its_operator_by_anchor_too() {
    let mut tk = toolkit();
    tk.operators[0].anchor = Some("op_anchor".into());
    let opts = EvalOptions::default();
    for name in ["op", "&op_anchor", "op_anchor", "op (&op_anchor)"] {
        let (resolved, diags) = resolve(&tk, &[Record::operator(name, &["X"])], &opts);
        assert!(diags.is_empty(), "{name}: {diags:?}");
        assert_eq!(resolved.len(), 1, "{name}");
        assert_eq!(resolved[0].group, "op", "{name}");
    }
}
