//! Step evaluation: numbers worked out by hand, and against a brute force (a
//! recommendation per step at every threshold an edge score gives) on random toolkits and
//! ordered traces.

use petgraph::stable_graph::NodeIndex;
use proptest::prelude::*;

use super::*;
use crate::evidence::eval_tests::toolkit;
use crate::evidence::{CostFn, Record};
use crate::model::{Node, Operator};

/// Tokens by name: X 10, Y 20, Z 40, W 80 (others by index).
pub(super) fn cost(tk: &Toolkit) -> impl Fn(NodeIndex) -> u64 + '_ {
    |ix| match tk.name(ix) {
        "X" => 10,
        "Y" => 20,
        "Z" => 40,
        "W" => 80,
        _ => 5 + ix.index() as u64 % 7,
    }
}

pub(super) fn run(tk: &Toolkit, records: &[Record], opts: StepOptions) -> StepReport {
    let mut c = StepCounter::new(tk, opts);
    for r in records {
        c.add(r);
    }
    c.finish(&CostFn(cost(tk)))
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[test]
fn numbers_worked_out_by_hand() {
    // a -0.8-> b -0.4-> c; a calls X 0.9, W 0.3; b calls Y 0.6; c calls Z 0.7. op: [a], 0.5, 1.
    let tk = toolkit();
    let mut cut = Record::ordered("op", &["X", "W", "Y"]);
    cut.available = Some(vec!["X".into(), "W".into()]);
    let records = vec![
        Record::ordered("op", &["X", "Y", "Z", "Q", "X"]),
        cut,
        Record::operator("op", &["X", "Y"]),
        Record::ordered("nope", &["X", "Y"]),
    ];
    let r = run(&tk, &records, StepOptions::default());
    // Record 1: X->Y offers {X, Y} (30 tokens), hit; Y->Z offers {Y} (20); Z->Q offers {Z}
    // (40), Q unknown; Q->X has no seeds, offers nothing.
    // Record 2 (available X, W): X->W offers {X} (W's 0.3 < 0.5), miss; W->Y: seeds [a]
    // offer {X} again, Y not available: miss.
    let o = &r.overall;
    assert_eq!((o.records, o.unordered), (3, 1));
    assert_eq!(
        (o.stats.steps, o.stats.hits, o.stats.unknown_targets),
        (6, 1, 1)
    );
    assert!(close(o.stats.recall, 1.0 / 6.0));
    assert!(close(
        o.stats.offered_tools,
        // 2 + 1 + 1 + 0 + 1 + 1 tools over 6 steps
        1.0
    ));
    assert!(close(o.stats.tokens, (30 + 20 + 40 + 10 + 10) as f64 / 6.0));
    // Baseline: every tool (150 tokens) for record 1, X and W (90) for record 2; its hits:
    // Y, Z, X of record 1 and W of record 2.
    let base = (4.0 * 150.0 + 2.0 * 90.0) / 6.0;
    assert!(close(o.stats.baseline.tokens, base));
    assert!(close(o.stats.baseline.recall, 4.0 / 6.0));
    assert!(close(
        o.stats.baseline.offered_tools,
        (4.0 * 4.0 + 2.0 * 2.0) / 6.0
    ));
    assert!(close(o.stats.token_ratio, (110.0 / 6.0) / base));
    // First calls: X both times, offered from [a] ({X, Y}, and {X} when cut).
    assert_eq!((o.first.steps, o.first.hits), (2, 2));
    assert!(close(o.first.tokens, 20.0));
    assert_eq!(r.operators.len(), 1);
    assert_eq!(r.operators[0].stats, o.stats);
    assert_eq!(
        (r.operators[0].threshold, r.operators[0].hops),
        (Some(0.5), Some(1))
    );
}

/// A name listed twice in `available` was sent twice (the Chat2Graph recorder lists a tool
/// Chat2Graph sends twice so): the baseline counts it twice; the cut is by tool.
#[test]
fn a_tool_listed_twice_as_available_counts_twice_in_the_baseline() {
    let tk = toolkit();
    let mut r = Record::ordered("op", &["X", "Y"]);
    r.available = Some(vec!["X".into(), "Y".into(), "X".into(), "nope".into()]);
    let o = run(&tk, &[r], StepOptions::default()).overall;
    // X->Y offers {X, Y} (30 tokens), a hit; the baseline is X twice and Y: 40 tokens.
    assert_eq!((o.stats.steps, o.stats.hits), (1, 1));
    assert!(close(o.stats.offered_tools, 2.0) && close(o.stats.tokens, 30.0));
    assert!(close(o.stats.baseline.offered_tools, 3.0));
    assert!(close(o.stats.baseline.tokens, 40.0));
    assert!(close(o.stats.baseline.recall, 1.0));
    assert!(close(o.stats.token_ratio, 30.0 / 40.0));
}

#[test]
fn sweep_points_and_choices_by_hand() {
    let tk = toolkit();
    let records = vec![Record::ordered("op", &["X", "Y", "Z"])];
    let opts = StepOptions {
        sweep: true,
        target_recall: 1.0,
        budget: 0.2,
        ..StepOptions::default()
    };
    let r = run(&tk, &records, opts);
    let sweep = r.overall.sweep.as_ref().unwrap();
    let at = |t: f64, h: u32| {
        sweep
            .iter()
            .find(|p| p.threshold == t && p.hops == h)
            .unwrap_or_else(|| panic!("no point {t} {h} in {sweep:?}"))
    };
    // Hops 0: X->Y offers X (0.9) and W (0.3); Y->Z offers Y (0.6).
    assert_eq!(sweep.iter().filter(|p| p.hops == 0).count(), 3);
    assert_eq!(at(0.9, 0).recall, 0.0);
    // Hops 1 at 0.4: X->Y offers X, Y (hit; W's 0.3 is below); Y->Z offers Y, Z (0.4, hit).
    let p = at(0.4, 1);
    assert_eq!((p.recall, p.offered_tools, p.tokens), (1.0, 2.0, 45.0));
    assert_eq!(p.token_ratio, Some(45.0 / 150.0));
    // The cheapest point with recall 1: at 0.6 Z is not offered; hops 2 at 0.4 offers the
    // same as hops 1, so fewer hops wins.
    let s = r.overall.suggested.as_ref().unwrap();
    assert_eq!((s.threshold, s.hops), (0.4, 1));
    // Within 20% of 150 tokens: recall 0.5 at 0.6 hops 1 (X, Y then Y: 25 tokens).
    let b = r.overall.best.as_ref().unwrap();
    assert_eq!((b.threshold, b.hops, b.recall), (0.6, 1, 0.5));
    let text = report::to_text(&r, "o200k_base");
    assert!(
        text.contains("suggested (fewest tokens reaching step recall 1.00): threshold 0.4, hops 1"),
        "{text}"
    );
    let json = report::to_json(&r);
    assert_eq!(json["overall"]["steps"], 2);
    assert_eq!(json["overall"]["sweep"][0]["hops"], 0);
    assert_eq!(json["operators"][0]["operator"], "op");
}

#[test]
fn more_previous_calls_seed_more() {
    let tk = toolkit();
    let records = vec![Record::ordered("op", &["Z", "X", "Y", "Z"])];
    let one = run(&tk, &records, StepOptions::default());
    let two = run(
        &tk,
        &records,
        StepOptions {
            context: 2,
            ..StepOptions::default()
        },
    );
    // Context 1: Z->X miss, X->Y hit, Y->Z miss. Context 2: Y->Z is seeded by X and Y
    // (a and b): still miss (c is 0.4 away); X->Y hit; Z->X seeded by Z alone: miss.
    assert_eq!(one.overall.stats.hits, 1);
    assert_eq!(two.overall.stats.hits, 1);
    assert!(two.overall.stats.offered_tools > one.overall.stats.offered_tools);
    assert_eq!(two.context, 2);
}

/// The brute force: every step's offer from `recommend` at (t, h), cut to what is
/// available.
fn brute(
    tk: &Toolkit,
    records: &[Record],
    t: Option<f64>,
    h: Option<u32>,
    k: usize,
) -> (u64, u64, u64, u64) {
    let (mut steps, mut hits, mut offered, mut tokens) = (0, 0, 0, 0);
    let cost = cost(tk);
    let all = every_tool(tk);
    for r in records {
        let Some(calls) = &r.calls else { continue };
        let Target::Operator(name) = &r.target else {
            continue;
        };
        let Some(op) = tk.operator(name) else {
            continue;
        };
        let params = Params {
            threshold: t.unwrap_or(op.threshold),
            hops: h.unwrap_or(op.hops),
        };
        let available: Vec<NodeIndex> = match r.available.as_deref() {
            None | Some([]) => all.clone(),
            Some(names) => names
                .iter()
                .filter_map(|n| tool_named(tk, n))
                .flat_map(|ix| std::iter::once(ix).chain(members(tk, ix)))
                .collect(),
        };
        for i in 1..calls.len() {
            let mut seeds = Vec::new();
            for c in &calls[i.saturating_sub(k)..i] {
                if let Some(x) = tool_named(tk, c) {
                    seeds.extend(
                        tk.in_edges(x)
                            .filter(|&(e, _)| tk.graph[e].kind == EdgeKind::Call)
                            .map(|(_, a)| a),
                    );
                }
            }
            let rec = recommend(tk, &seeds, params);
            let offer: Vec<NodeIndex> = rec
                .tools
                .iter()
                .copied()
                .filter(|x| r.available.is_none() || available.contains(x))
                .collect();
            // A tool counts once per function sent (Chat2Graph: per caller and place).
            let copies =
                |x: NodeIndex| u64::from(tk.copies_sent(x, &rec.actions, params.threshold));
            steps += 1;
            offered += offer.iter().map(|&x| copies(x)).sum::<u64>();
            tokens += offer.iter().map(|&x| copies(x) * cost(x)).sum::<u64>();
            if tool_named(tk, &calls[i]).is_some_and(|x| offer.contains(&x)) {
                hits += 1;
            }
        }
    }
    (steps, hits, offered, tokens)
}

use crate::evidence::Target;

/// The brute force of the first calls: each record's call 0 offered from its operator's
/// seeds by `recommend` (at `t` and `h` when given), cut to what is available, a tool once
/// per function sent.
fn brute_first(
    tk: &Toolkit,
    records: &[Record],
    t: Option<f64>,
    h: Option<u32>,
) -> (u64, u64, u64, u64) {
    let (mut steps, mut hits, mut offered, mut tokens) = (0, 0, 0, 0);
    let cost = cost(tk);
    for r in records {
        let Some(first) = r.calls.as_ref().and_then(|c| c.first()) else {
            continue;
        };
        let Target::Operator(name) = &r.target else {
            continue;
        };
        let Some(op) = tk.operator(name) else {
            continue;
        };
        let params = Params {
            threshold: t.unwrap_or(op.threshold),
            hops: h.unwrap_or(op.hops),
        };
        let (seeds, _) = crate::recommend::resolve_seeds(tk, &op.actions);
        let available: Option<Vec<NodeIndex>> = r.available.as_deref().map(|names| {
            names
                .iter()
                .filter_map(|n| tool_named(tk, n))
                .flat_map(|ix| std::iter::once(ix).chain(members(tk, ix)))
                .collect()
        });
        let rec = recommend(tk, &seeds, params);
        let offer: Vec<NodeIndex> = rec
            .tools
            .iter()
            .copied()
            .filter(|x| available.as_ref().is_none_or(|a| a.contains(x)))
            .collect();
        let copies = |x: NodeIndex| u64::from(tk.copies_sent(x, &rec.actions, params.threshold));
        steps += 1;
        offered += offer.iter().map(|&x| copies(x)).sum::<u64>();
        tokens += offer.iter().map(|&x| copies(x) * cost(x)).sum::<u64>();
        if tool_named(tk, first).is_some_and(|x| offer.contains(&x)) {
            hits += 1;
        }
    }
    (steps, hits, offered, tokens)
}

const SCORES: [f64; 5] = [0.2, 0.4, 0.5, 0.7, 0.9];

prop_compose! {
    pub(super) fn arb_case()(
        nexts in prop::collection::vec((0..5usize, 0..5usize, 0..5usize), 0..12),
        calls in prop::collection::vec((0..5usize, 0..6usize, 0..5usize), 1..10),
        group in any::<bool>(),
        places in prop::option::of(prop::collection::vec(1..4u32, 5)),
        ops in prop::collection::vec((prop::collection::vec(0..5usize, 1..3), 0..5usize, 0..3u32), 1..3),
        recs in prop::collection::vec(
            (0..3usize, prop::collection::vec(0..8usize, 0..6), prop::option::of(prop::collection::vec(0..8usize, 0..4))),
            0..10),
    ) -> (Toolkit, Vec<Record>) {
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
        if group {
            // G holds T0 and T1 and is itself called (a stand-in node with members).
            let g = tk.add_node(Node::new(NodeKind::Group, "G"));
            for t in ["T0", "T1"] {
                if let Some(x) = tk.find(NodeKind::Tool, t) {
                    tk.add_edge(g, x, 1.0, None);
                }
            }
            if let Some(a) = tk.action("a0") {
                tk.add_edge(a, g, 0.5, None);
            }
        }
        for (i, (seeds, t, h)) in ops.iter().enumerate() {
            let mut op = Operator::new(format!("op{i}"), seeds.iter().map(|s| format!("a{s}")).collect());
            op.threshold = SCORES[*t];
            op.hops = *h;
            tk.operators.push(op);
        }
        let n_ops = tk.operators.len();
        // Names 0..5 are tools (when called by some action), 6 the group, 7 unknown.
        let name = |c: usize| match c { 6 => "G".to_string(), 7 => "nope".to_string(), c => format!("T{c}") };
        let records = recs
            .into_iter()
            .map(|(op, calls, avail)| {
                let calls: Vec<String> = calls.into_iter().map(name).collect();
                let calls: Vec<&str> = calls.iter().map(String::as_str).collect();
                let mut r = Record::ordered(&format!("op{}", op % n_ops), &calls);
                r.available = avail.map(|a| a.into_iter().map(name).collect());
                r
            })
            .collect();
        (tk, records)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn steps_agree_with_brute_force((tk, records) in arb_case(), k in 1..3usize) {
        // `available: []` means "not said" in the counter; the brute force reads None only.
        let records: Vec<Record> = records.into_iter().map(|mut r| {
            if r.available.as_ref().is_some_and(Vec::is_empty) { r.available = None; }
            r
        }).collect();
        let opts = StepOptions { sweep: true, context: k, ..StepOptions::default() };
        let report = run(&tk, &records, opts);
        let (steps, hits, offered, tokens) = brute(&tk, &records, None, None, k);
        let o = &report.overall.stats;
        prop_assert_eq!((o.steps, o.hits), (steps, hits));
        let (fs, fh, fo, ft) = brute_first(&tk, &records, None, None);
        let f = &report.overall.first;
        prop_assert_eq!((f.steps, f.hits), (fs, fh));
        if fs > 0 {
            prop_assert!(close(f.offered_tools, fo as f64 / fs as f64), "{:?} {}", f, fo);
            prop_assert!(close(f.tokens, ft as f64 / fs as f64), "{:?} {}", f, ft);
        }
        if steps > 0 {
            prop_assert!(close(o.offered_tools, offered as f64 / steps as f64));
            prop_assert!(close(o.tokens, tokens as f64 / steps as f64));
        }
        // The sweep: at every edge score (and just above the top one), at every hop count,
        // the point in force equals the brute force there.
        let sweep = report.overall.sweep.as_ref().unwrap();
        let top = records
            .iter()
            .filter(|r| r.calls.as_ref().is_some_and(|c| !c.is_empty()))
            .filter_map(|r| match &r.target { Target::Operator(n) => tk.operator(n), _ => None })
            .map(|o| o.hops)
            .max()
            .unwrap_or(0) + 2;
        prop_assert!(sweep.iter().all(|p| p.hops <= top));
        let mut thresholds: Vec<f64> = SCORES.to_vec();
        thresholds.extend([1.0, 0.05, 0.95]);
        for h in 0..=top {
            for &t in &thresholds {
                let (s, want_hits, want_offered, want_tokens) = brute(&tk, &records, Some(t), Some(h), k);
                if s == 0 { continue; }
                // The point in force at t: the lowest point threshold >= t at this hop count.
                let p = sweep.iter().filter(|p| p.hops == h && p.threshold >= t)
                    .min_by(|a, b| a.threshold.total_cmp(&b.threshold));
                let got = p.map_or((0.0, 0.0, 0.0), |p| (p.recall, p.offered_tools, p.tokens));
                let n = s as f64;
                prop_assert!((got.0 - want_hits as f64 / n).abs() < 1e-9, "recall at {} {}: {:?}", t, h, got);
                prop_assert!((got.1 - want_offered as f64 / n).abs() < 1e-9, "offered at {} {}", t, h);
                prop_assert!((got.2 - want_tokens as f64 / n).abs() < 1e-9, "tokens at {} {}", t, h);
                // The second figure at the same point: the first calls at its threshold.
                if let Some(p) = p {
                    let (f, fh, _, ft) = brute_first(&tk, &records, Some(p.threshold), Some(h));
                    let first = (p.first_recall, p.first_tokens);
                    let want = (fh as f64 / f as f64, ft as f64 / f as f64);
                    prop_assert!(close(first.0, want.0) && close(first.1, want.1),
                        "first calls at {} {}: {:?}, brute force {:?}", p.threshold, h, first, want);
                }
            }
        }
        // Per operator, the same at their own parameters.
        for g in &report.operators {
            let mine: Vec<Record> = records.iter().filter(|r| r.target == Target::Operator(g.operator.clone())).cloned().collect();
            let (s, h, _, _) = brute(&tk, &mine, None, None, k);
            prop_assert_eq!((g.stats.steps, g.stats.hits), (s, h));
        }
    }
}
