//! The session driven with no terminal.

use super::*;

const KIT: &str = "\
actions:
  - name: a
next: [{name: b, score: 0.9}]
  - name: b
operators:
  - {name: op, actions: [a], threshold: 0.5, hops: 1}
";

fn session() -> Session {
    let ws = Workspace::from_text(Path::new("kit.yml"), KIT.to_string(), None)
        .expect("the fixture loads");
    let mut s = Session::new(ws);
    s.recovery_dir = None;
    s.params = Params {
        threshold: 0.5,
        hops: 1,
    };
    s
}

fn op(s: &Session) -> Operator {
    let ws = s.ws.as_ref().expect("a workspace");
    ws.toolkit.operators[0].clone()
}

/// Driven without a screen: pending parameters become one undo step, and after the
/// undo the parameters follow the file again.
#[test]
fn pending_parameters_are_one_step_and_follow_an_undo() {
    let mut s = session();
    assert_eq!(s.pending_params(Some(&op(&s))), PendingParams::default());
    s.params = Params {
        threshold: 0.7,
        hops: 3,
    };
    let shown = op(&s);
    let pending = s.pending_params(Some(&shown));
    assert!(pending.threshold && pending.hops);
    assert_eq!(s.param_edits(Some(&shown)).len(), 2);

    let out = s.commit_params(Some(&shown));
    assert!(!out.failed(), "{out:?}");
    assert_eq!(out.changed, Changed::Graph);
    assert_eq!((op(&s).threshold, op(&s).hops), (0.7, 3));
    assert_eq!(s.params.threshold, 0.7, "the view keeps its values");

    // One undo takes both back; the view, which showed the saved values, follows.
    let shown = op(&s);
    let pending = s.pending_params(Some(&shown));
    assert!(!s.undo().failed());
    s.follow_params(&op(&s), pending);
    assert_eq!((s.params.threshold, s.params.hops), (0.5, 1));
    assert_eq!(s.pending_params(Some(&op(&s))), PendingParams::default());
}

#[test]
fn nothing_is_pending_without_an_operator_or_a_workspace() {
    let mut s = session();
    s.params.threshold = 0.9;
    assert!(s.param_edits(None).is_empty());
    let shown = op(&s);
    s.ws = None;
    assert!(s.param_edits(Some(&shown)).is_empty());
    assert_eq!(s.commit_params(Some(&shown)), Outcome::default());
}
