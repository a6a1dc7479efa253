//! Replayed steps against a brute force from the kit's edges (a breadth-first walk of the
//! `Next` edges at the threshold), against `eval --steps`, and tuning from a miss by hand.

use petgraph::stable_graph::NodeIndex;
use proptest::prelude::*;

use super::figures::{Basis, Figure, Figures};
use super::replay::{offer_after, opening_tool, replay, step_seeds};
use super::tests::{arb_case, cost, run};
use super::tune::{Candidate, Change, basis_of, candidates, measure, rank};
use super::*;
use crate::evidence::eval_tests::toolkit;
use crate::evidence::{CostFn, Record, Target};

/// The offer of a step from the edges alone: the callers of `after` (or `seeds`), every
/// action within `hops` `Next` edges scored `>= t`, their `Call` edges scored `>= t` to a
/// tool or group, cut to `available` (tools, groups and their members).
fn brute_offer(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    params: Params,
    available: Option<&[String]>,
) -> Vec<NodeIndex> {
    let t = params.threshold;
    let mut reached: Vec<NodeIndex> = seeds
        .iter()
        .copied()
        .filter(|&s| tk.kind(s) == NodeKind::Action)
        .collect();
    let mut frontier = reached.clone();
    for _ in 0..params.hops {
        let mut next = Vec::new();
        for &u in &frontier {
            for e in tk.graph.edge_indices() {
                let (a, b) = tk.graph.edge_endpoints(e).unwrap();
                let edge = &tk.graph[e];
                if a == u && edge.kind == EdgeKind::Next && edge.score >= t && !reached.contains(&b)
                {
                    reached.push(b);
                    next.push(b);
                }
            }
        }
        frontier = next;
    }
    let mut out = Vec::new();
    for e in tk.graph.edge_indices() {
        let (a, b) = tk.graph.edge_endpoints(e).unwrap();
        let edge = &tk.graph[e];
        let tool_like = matches!(tk.kind(b), NodeKind::Tool | NodeKind::Group);
        if reached.contains(&a) && edge.kind == EdgeKind::Call && edge.score >= t && tool_like {
            out.push(b);
        }
    }
    if let Some(names) = available {
        let mut set = Vec::new();
        for n in names {
            if let Some(x) = tool_named(tk, n) {
                set.push(x);
                set.extend(members(tk, x));
            }
        }
        out.retain(|x| set.contains(x));
    }
    out.sort();
    out.dedup();
    out
}

fn callers_of(tk: &Toolkit, tools: &[NodeIndex]) -> Vec<NodeIndex> {
    let mut out = Vec::new();
    for e in tk.graph.edge_indices() {
        let (a, b) = tk.graph.edge_endpoints(e).unwrap();
        if tools.contains(&b) && tk.graph[e].kind == EdgeKind::Call {
            out.push(a);
        }
    }
    out.sort();
    out.dedup();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn replayed_offers_agree_with_the_edges_and_with_eval((tk, records) in arb_case()) {
        let mut steps = (0u64, 0u64);
        let mut first = (0u64, 0u64);
        for r in &records {
            let Target::Operator(name) = &r.target else { continue };
            let op = tk.operator(name).unwrap();
            let params = Params { threshold: op.threshold, hops: op.hops };
            let mut played = replay(&tk, r, None, 1).unwrap();
            prop_assert_eq!(played.params, params);
            let calls = r.calls.as_ref().unwrap();
            prop_assert_eq!(played.len(), calls.len());
            for s in &played.all_steps(&tk) {
                let seeds = if s.step == 0 {
                    crate::recommend::resolve_seeds(&tk, &op.actions).0
                } else {
                    let after: Vec<NodeIndex> = tool_named(&tk, &calls[s.step - 1]).into_iter().collect();
                    callers_of(&tk, &after)
                };
                let want = brute_offer(&tk, &seeds, params, r.available.as_deref());
                prop_assert_eq!(&s.offer.offered, &want, "step {} of {:?}", s.step, calls);
                let hit = tool_named(&tk, &s.next).is_some_and(|x| want.contains(&x));
                prop_assert_eq!(s.hit, hit);
                let tally = if s.step == 0 { &mut first } else { &mut steps };
                tally.0 += 1;
                tally.1 += u64::from(hit);
            }
        }
        // The same steps as `eval --steps` counts them.
        let mut c = StepCounter::new(&tk, StepOptions::default());
        for r in &records {
            c.add(r);
        }
        let o = c.finish(&CostFn(cost(&tk))).overall;
        prop_assert_eq!((o.stats.steps, o.stats.hits), steps);
        prop_assert_eq!((o.first.steps, o.first.hits), first);
    }

    #[test]
    fn a_step_after_a_tool_is_the_offer_from_its_callers((tk, _) in arb_case(), tool in 0..6usize, t in 0..5usize, h in 0..3u32) {
        let Some(x) = tool_named(&tk, &format!("T{tool}")) else { return Ok(()) };
        let params = Params { threshold: [0.2, 0.4, 0.5, 0.7, 0.9][t], hops: h };
        let offer = offer_after(&tk, &[x], params, None);
        prop_assert_eq!(&offer.seeds, &callers_of(&tk, &[x]));
        prop_assert_eq!(&offer.seeds, &step_seeds(&tk, &[x]));
        prop_assert_eq!(offer.offered, brute_offer(&tk, &offer.seeds, params, None));
    }
}

#[test]
fn a_run_replayed_by_hand_and_tuned_from_its_miss() {
    // a -0.8-> b -0.4-> c; a calls X 0.9, W 0.3; b calls Y 0.6; c calls Z 0.7. op: [a], 0.5, 1.
    let tk = toolkit();
    let ix = |n: &str| tool_named(&tk, n).unwrap();
    let sorted = |mut v: Vec<NodeIndex>| {
        v.sort();
        v
    };
    let r = Record::ordered("op", &["X", "Y", "Z", "Q"]);
    let mut played = replay(&tk, &r, None, 1).unwrap();
    assert_eq!(played.hits_through(0), None, "nothing walked yet");
    let steps = played.all_steps(&tk);
    let offered: Vec<Vec<NodeIndex>> = steps.iter().map(|s| s.offer.offered.clone()).collect();
    assert_eq!(
        offered,
        vec![
            sorted(vec![ix("X"), ix("Y")]),
            sorted(vec![ix("X"), ix("Y")]),
            vec![ix("Y")],
            vec![ix("Z")],
        ]
    );
    let hits: Vec<bool> = steps.iter().map(|s| s.hit).collect();
    assert_eq!(hits, [true, true, false, false]);
    let stop = std::sync::atomic::AtomicBool::new(false);
    assert_eq!(played.walk().hits(&tk, 9, &stop), Some(hits));
    assert_eq!(steps[2].after, ["Y"]);
    assert_eq!(steps[3].target, None, "Q is no tool of the kit");
    assert_eq!(played.hits_through(2), Some((2, 3)));

    // Z was missed after Y: b -> c (0.4) keeps it out at 0.5.
    let miss = &steps[2];
    let cands = candidates(&tk, miss, played.params, Some("op"), None);
    let b_c = tk
        .edge(tk.action("b").unwrap(), tk.action("c").unwrap())
        .unwrap();
    assert_eq!(
        cands,
        vec![
            vec![Change::Threshold {
                operator: "op".into(),
                to: 0.4
            }],
            vec![Change::Score { edge: b_c, to: 0.5 }],
        ]
    );
    // Nothing to tune at a hit, or at a call that is no tool.
    assert!(candidates(&tk, &steps[1], played.params, Some("op"), None).is_empty());
    assert!(candidates(&tk, &steps[3], played.params, Some("op"), None).is_empty());

    // Over the one run, the steps (the calls after the first) and the first call apart:
    // steps 1 of 3 ({X, Y} 30, {Y} 20, {Z} 40 tokens: 30 a step), the first call 1 of 1
    // ({X, Y}: 30); either change makes step 2 offer {Y, Z} (60): 2 of 3, 130/3 a step,
    // the first call as it was. The figures are `eval --steps`'s: stats and first.
    assert_eq!(basis_of(miss), Basis::Steps);
    assert_eq!(basis_of(&steps[0]), Basis::FirstCalls);
    let ranked = measure(
        &tk,
        std::slice::from_ref(&r),
        cands,
        &CostFn(cost(&tk)),
        Basis::Steps,
    );
    assert_eq!(ranked.len(), 2);
    let eval = run(&tk, std::slice::from_ref(&r), StepOptions::default()).overall;
    for c in &ranked {
        assert_eq!(c.before, Figures::of(&eval), "{c:?}");
        assert_eq!((c.before.steps.calls, c.before.steps.hits), (3, 1));
        assert_eq!((c.after.steps.calls, c.after.steps.hits), (3, 2));
        assert_eq!((c.before.first.calls, c.before.first.hits), (1, 1));
        assert_eq!(c.after.first, c.before.first);
        assert!((c.before.steps.tokens - 30.0).abs() < 1e-9, "{c:?}");
        assert!((c.after.steps.tokens - 130.0 / 3.0).abs() < 1e-9, "{c:?}");
        assert!((c.before.first.tokens - 30.0).abs() < 1e-9, "{c:?}");
    }
    let edits = ranked[1].edits(&tk);
    assert_eq!(
        edits,
        vec![crate::edit::Edit::SetScore {
            from: "b".into(),
            to: "c".into(),
            to_kind: NodeKind::Action,
            score: 0.5
        }]
    );
    assert_eq!(ranked[1].describe(&tk), "b -> c 0.4 -> 0.5");
    // Made on the kit, the step is a hit.
    let tuned = super::tune::changed(&tk, &ranked[1].changes);
    assert!(
        replay(&tuned, &r, None, 1)
            .unwrap()
            .step(&tuned, 2)
            .unwrap()
            .hit
    );
}

#[test]
fn a_tool_out_of_reach_gets_a_link_and_more_hops_when_needed() {
    let tk = toolkit();
    // From c nothing reaches X: a link from c to a (X's caller) at the threshold.
    let r = Record::ordered("op", &["Z", "X"]);
    let mut played = replay(
        &tk,
        &r,
        Some(Params {
            threshold: 0.5,
            hops: 0,
        }),
        1,
    )
    .unwrap();
    let step1 = played.step(&tk, 1).unwrap();
    assert!(!step1.hit);
    let cands = candidates(&tk, &step1, played.params, Some("op"), None);
    let (a, c) = (tk.action("a").unwrap(), tk.action("c").unwrap());
    assert_eq!(
        cands,
        vec![vec![
            Change::Link {
                from: c,
                to: a,
                score: 0.5
            },
            Change::Hops {
                operator: "op".into(),
                to: 1
            },
        ]]
    );
    let tuned = super::tune::changed(&tk, &cands[0]);
    assert!(
        replay(&tuned, &r, None, 1)
            .unwrap()
            .step(&tuned, 1)
            .unwrap()
            .hit
    );
    // A tool the run did not have is not tuned for.
    let mut cut = Record::ordered("op", &["Y", "Z"]);
    cut.available = Some(vec!["Y".into()]);
    let mut played = replay(&tk, &cut, None, 1).unwrap();
    let step1 = played.step(&tk, 1).unwrap();
    assert!(
        candidates(
            &tk,
            &step1,
            played.params,
            Some("op"),
            played.available.as_deref()
        )
        .is_empty()
    );
}

fn cand(gain_hits: u64, tokens: f64, changes: usize) -> Candidate {
    let before = Figures {
        steps: Figure {
            calls: 10,
            hits: 5,
            tokens: 100.0,
        },
        first: Figure::default(),
    };
    Candidate {
        changes: vec![
            Change::Hops {
                operator: "op".into(),
                to: 1
            };
            changes
        ],
        before,
        after: Figures {
            steps: Figure {
                calls: 10,
                hits: 5 + gain_hits,
                tokens,
            },
            first: Figure::default(),
        },
        basis: Basis::Steps,
    }
}

#[test]
fn candidates_rank_by_recall_gained_per_token_added() {
    let mut list = [
        cand(0, 90.0, 1),  // no gain: last
        cand(2, 140.0, 1), // 0.2 for 40: 0.005 a token
        cand(1, 110.0, 1), // 0.1 for 10: 0.01 a token
        cand(1, 100.0, 2), // free gain of 0.1
        cand(3, 95.0, 1),  // free gain of 0.3, saves tokens: first
        cand(1, 100.0, 1), // free gain of 0.1, fewer changes than the other
    ];
    list.sort_by(rank);
    let got: Vec<(u64, f64, usize)> = list
        .iter()
        .map(|c| {
            (
                c.after.steps.hits - 5,
                c.after.steps.tokens,
                c.changes.len(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (3, 95.0, 1),
            (1, 100.0, 1),
            (1, 100.0, 2),
            (1, 110.0, 1),
            (2, 140.0, 1),
            (0, 90.0, 1),
        ]
    );
}

#[test]
fn a_first_calls_miss_ranks_by_the_first_calls_figure() {
    // One candidate gains a step (the main figure), the other a first call (the second):
    // at a later call's miss the first ranks first, at a first call's miss the second.
    let steps_gain = cand(1, 100.0, 1);
    let mut first_gain = cand(0, 100.0, 1);
    first_gain.before.first = Figure {
        calls: 4,
        hits: 1,
        tokens: 50.0,
    };
    first_gain.after.first = Figure {
        calls: 4,
        hits: 3,
        tokens: 50.0,
    };
    let ranked = |basis: Basis| {
        let mut list = [steps_gain.clone(), first_gain.clone()];
        for c in &mut list {
            c.basis = basis;
        }
        list.sort_by(rank);
        list.map(|c| c.after.first.hits)
    };
    assert_eq!(ranked(Basis::Steps), [0, 3]);
    assert_eq!(ranked(Basis::FirstCalls), [3, 0]);
}

#[test]
fn a_step_kit_opens_on_the_tool_most_runs_call_first() {
    use crate::model::{Node, Operator};
    let mut tk = Toolkit::new();
    for t in ["ls", "cd", "cat"] {
        let a = format!("call {t}");
        tk.add_action(Node::new(NodeKind::Action, a.clone()), &[], &[]);
        tk.add_tool(Node::new(NodeKind::Tool, t), &[(a.as_str(), 1.0)]);
    }
    tk.add_action(
        Node::new(NodeKind::Action, "call ls"),
        &[("call cat", 0.9)],
        &[],
    );
    tk.add_action(
        Node::new(NodeKind::Action, "call cd"),
        &[("call cat", 0.2), ("call ls", 0.1)],
        &[],
    );
    tk.operators.push(Operator::new(
        "bfcl",
        vec!["call ls".into(), "call cd".into(), "call cat".into()],
    ));
    assert!(super::replay::is_step_kit(&tk));
    let op = tk.operators[0].clone();
    let p = Params {
        threshold: 0.05,
        hops: 1,
    };
    // No records: the seed the most Next weight points to (cat: 1.1).
    assert_eq!(opening_tool(&tk, &op, &[], p, 10), tool_named(&tk, "cat"));
    let records = vec![
        Record::ordered("bfcl", &["cd", "ls"]),
        Record::ordered("bfcl", &["cd"]),
        Record::ordered("bfcl", &["ls", "cd"]),
        Record::ordered("other", &["ls"]),
    ];
    assert_eq!(
        opening_tool(&tk, &op, &records, p, 10),
        tool_named(&tk, "cd")
    );
    // After cd: cd, cat and ls (3 tools); after ls: ls and cat (2). With room for 2, ls,
    // the next most called first, fits; with no room none does: the smallest offer (cat's).
    assert_eq!(
        opening_tool(&tk, &op, &records, p, 2),
        tool_named(&tk, "ls")
    );
    assert_eq!(
        opening_tool(&tk, &op, &records, p, 0),
        tool_named(&tk, "cat")
    );
    // An action calling two tools (or named otherwise) is no step kit.
    tk.add_tool(Node::new(NodeKind::Tool, "pwd"), &[("call ls", 1.0)]);
    assert!(!super::replay::is_step_kit(&tk));
    assert!(!super::replay::is_step_kit(&toolkit()));
}

/// Issue 46 items 5 and 9: a record is walked where it is shown, not whole. A 500-call
/// record at threshold 0 and 20 hops: making it to replay walks nothing, a step is one
/// walk, and the hits (for the recall so far) are walked only when asked, stoppable.
#[test]
fn a_long_record_is_walked_only_where_it_is_shown() {
    let tk = toolkit();
    let calls: Vec<&str> = ["X", "Y", "Z", "Q"]
        .iter()
        .copied()
        .cycle()
        .take(500)
        .collect();
    let mut r = Record::ordered("op", &calls);
    r.threshold = Some(0.0);
    r.hops = Some(20);
    let before = super::replay::steps_walked();
    let mut played = replay(&tk, &r, None, 1).unwrap();
    assert_eq!(played.len(), 500);
    assert_eq!(
        super::replay::steps_walked() - before,
        0,
        "nothing walked up front"
    );
    let s = played.step(&tk, 499).unwrap();
    assert_eq!(s.after, ["Z"]);
    assert_eq!(
        super::replay::steps_walked() - before,
        1,
        "one step, one walk"
    );
    assert_eq!(
        played.hits_through(499),
        None,
        "the earlier steps are not walked"
    );
    // A walk of the hits stops at its switch.
    let stop = std::sync::atomic::AtomicBool::new(true);
    assert_eq!(played.walk().hits(&tk, 499, &stop), None);
    assert_eq!(super::replay::steps_walked() - before, 1);
    stop.store(false, std::sync::atomic::Ordering::SeqCst);
    let hits = played.walk().hits(&tk, 499, &stop).unwrap();
    played.set_hits(&hits);
    assert_eq!(played.hits_through(499).map(|h| h.1), Some(500));
}

/// The learned kit (`init` + `fit --write` on 200 `gen` runs; thresholds at `fit`'s
/// suggestion) and its held-out runs.
fn learned() -> (Toolkit, Vec<Record>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/replay");
    // Read by the native format directly: loading is toolscope-core's, above this crate.
    let kit = std::fs::read_to_string(dir.join("learned-kit.yaml")).expect("kit");
    let doc = crate::source::yaml::parse(&kit, &Default::default()).expect("parses");
    let mut ctx = toolscope_edit::formats::ctx::Ctx::new(&doc, "learned-kit.yaml".into());
    toolscope_edit::formats::of(crate::source::Format::Native).load(&mut ctx);
    let (tk, diags, _) = ctx.finish();
    assert!(diags.is_empty(), "{diags:?}");
    let text = std::fs::read_to_string(dir.join("learned-runs.jsonl")).expect("runs");
    let (records, diags) = crate::evidence::traces::parse_jsonl("learned-runs.jsonl", &text);
    assert!(diags.is_empty(), "{diags:?}");
    (tk, records)
}

#[test]
fn a_miss_that_needs_hops_gets_candidates_of_one_edge_that_offer_it() {
    let (tk, records) = learned();
    let mut tried = 0;
    for r in &records {
        let mut played = replay(&tk, r, None, 1).unwrap();
        for s in played
            .all_steps(&tk)
            .iter()
            .filter(|s| !s.hit && s.target.is_some())
        {
            let Some(t) = s.target else { continue };
            let why = crate::recommend::explain(&tk, &s.offer.seeds, played.params, t).unwrap();
            let more_hops = matches!(
                why.reason,
                crate::recommend::Reason::NeedsHops { .. }
                    | crate::recommend::Reason::Blocked {
                        with_more_hops: Some(_),
                        ..
                    }
            );
            if !more_hops {
                continue;
            }
            let op = played.operator.as_deref();
            let cands = candidates(&tk, s, played.params, op, None);
            let one: Vec<&super::tune::Changes> = cands
                .iter()
                .filter(|c| {
                    c.len() == 1 && matches!(c[0], Change::Link { .. } | Change::Score { .. })
                })
                .collect();
            assert!(!one.is_empty(), "{} after {:?}: {cands:?}", s.next, s.after);
            assert!(one.len() <= super::tune::MOST_LINKS);
            for c in one {
                let (from, to) = match c[0] {
                    Change::Link { from, to, score } => {
                        assert_eq!(score, played.params.threshold);
                        (from, to)
                    }
                    Change::Score { edge, .. } => tk.graph.edge_endpoints(edge).unwrap(),
                    _ => unreachable!(),
                };
                assert!(s.offer.seeds.contains(&from), "from a seed of the step");
                assert!(tk.edge(to, t).is_some(), "to a caller of the called tool");
                // Made on the kit, the step offers the call.
                let tuned = super::tune::changed(&tk, c);
                let mut again = replay(&tuned, r, None, 1).unwrap();
                let same = again
                    .all_steps(&tuned)
                    .into_iter()
                    .find(|x| x.after == s.after && x.next == s.next);
                assert!(
                    same.is_some_and(|x| x.hit),
                    "{} after {:?}",
                    s.next,
                    s.after
                );
            }
            tried += 1;
        }
    }
    assert!(
        tried >= 3,
        "the fixture has misses that need hops ({tried})"
    );
}
