use super::*;
use crate::model::{Node, NodeKind, Operator, Toolkit};

/// a -next 0.8-> b -next 0.4-> c; a calls X 0.9 and W 0.3, b calls Y 0.6, c calls Z 0.7.
/// Operator `op`: seeds [a], threshold 0.5, hops 1. (The kit of toolscope-evidence's
/// `eval_tests`, whose test helpers this crate cannot name.)
fn toolkit() -> Toolkit {
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

/// `n` records of operator `op`, calling X and Y in turn.
fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| Record::operator("op", if i % 2 == 0 { &["X"] } else { &["Y"] }))
        .collect()
}

fn evaluated() -> Option<Evaluate> {
    Some(Evaluate {
        encoding: Encoding::O200kBase,
        threshold: None,
        hops: None,
    })
}

#[test]
fn a_stop_ends_the_fit_with_nothing() {
    let tk = toolkit();
    assert!(fit(&tk, &records(40), &FitOptions::default(), &|| true).is_none());
    let done = fit(&tk, &records(40), &FitOptions::default(), &|| false).expect("not stopped");
    assert_eq!(done.fitted, 40);
    assert!(
        !done.changes.is_empty(),
        "X and Y are called: their scores move"
    );
    assert!(done.evals.is_none(), "no evaluation was asked for");
}

#[test]
fn the_holdout_is_left_out_of_the_fit_and_evaluated_apart() {
    let tk = toolkit();
    let opts = FitOptions {
        holdout: Some(0.25),
        evaluate: evaluated(),
        ..FitOptions::default()
    };
    let done = fit(&tk, &records(40), &opts, &|| false).expect("not stopped");
    let held = holdout_mask(40, 0.25, HOLDOUT_SEED)
        .iter()
        .filter(|h| **h)
        .count();
    assert!(held > 0 && held < 40, "{held}");
    assert_eq!(done.fitted, 40 - held);
    let evals = done.evals.expect("asked for");
    assert_eq!(evals.fitted.0.overall.records, 40 - held);
    assert_eq!(evals.held.expect("a hold-out").1.overall.records, held);
    // No record has its calls in order: no steps, and the suggestion is by completeness.
    assert!(evals.steps_fitted.is_none() && evals.steps_held.is_none());
    assert!(matches!(evals.suggestions, Suggestions::Records(_)));
}

#[test]
fn an_operator_keeps_only_its_own_records() {
    let mut tk = toolkit();
    tk.operators
        .push(crate::model::Operator::new("another", vec!["b".into()]));
    let mut recs = records(10);
    recs.push(Record::operator("another", &["X"]));
    let mine = FitOptions {
        operator: Some("op".into()),
        ..FitOptions::default()
    };
    let done = fit(&tk, &recs, &mine, &|| false).expect("not stopped");
    assert_eq!(done.fitted, 10);
    let all = fit(&tk, &recs, &FitOptions::default(), &|| false).expect("not stopped");
    assert_eq!(
        all.fitted, 11,
        "the other operator's record counts without the filter"
    );
}
