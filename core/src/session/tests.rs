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

const FILE: &str = "\
actions:
  - name: a
    next: [{name: b, score: 0.9}]
  - name: b
    tools: [{name: T, score: 0.4}]
tools:
  - name: T
operators:
  - {name: op, actions: [a], threshold: 0.5, hops: 1}
";

fn score(from: &str, to: &str, to_kind: crate::model::NodeKind, score: f64) -> Edit {
    Edit::SetScore {
        from: from.into(),
        to: to.into(),
        to_kind,
        score,
    }
}

/// A session on a real file, as a front end opens it (no watcher: its events are queued
/// by hand), with its recovery files in `state`.
fn open(path: &Path, state: &Path) -> Session {
    let ws = Workspace::open(&[path.to_path_buf()], None).expect("opens");
    let mut s = Session::new(ws);
    // A folder toolscope makes (private); a temporary folder may be open to others.
    s.recovery_dir = Some(state.join("state"));
    assert!(
        s.start_watching(None, &[path.to_path_buf()], None)
            .is_none()
    );
    s
}

/// The whole cycle a front end drives, with no terminal: an edit, a change on disk that
/// conflicts with it (found by the watcher's batch and again by the save), reapplying the
/// edit onto the new content, saving, then a session ending without asking and the next
/// one recovering its edit.
#[test]
fn edit_conflict_reapply_save_and_recover_with_no_terminal() {
    use crate::model::NodeKind;
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state dir");
    let path = dir.path().join("kit.yaml");
    std::fs::write(&path, FILE).expect("write");
    let mut s = open(&path, state.path());

    let out = s.apply(score("a", "b", NodeKind::Action, 0.7));
    assert!(!out.failed(), "{out:?}");
    assert_eq!(out.changed, Changed::Graph);
    assert!(s.is_dirty());

    // Someone else changes the file: the batch of watcher events asks, reloads nothing.
    let theirs = FILE.replace("score: 0.4", "score: 0.3");
    std::fs::write(&path, &theirs).expect("write");
    assert_eq!(s.queue(WatchEvent::Changed([path.clone()].into())), None);
    let out = s.flush(None);
    assert_eq!(
        out.question,
        Some(Question::Conflict {
            paths: vec![path.clone()]
        })
    );
    assert_eq!(out.changed, Changed::Nothing);
    // The save refuses to write over it and asks the same question.
    let out = s.save();
    assert!(out.failed());
    assert!(matches!(out.question, Some(Question::Conflict { .. })));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), theirs);

    // Reapply: my edit onto their content; the save keeps both.
    let out = s.reapply();
    assert!(!out.failed(), "{out:?}");
    assert_eq!(out.changed, Changed::Reloaded);
    let out = s.save();
    assert!(!out.failed(), "{out:?}");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("{name: b, score: 0.7}"), "{text}");
    assert!(text.contains("{name: T, score: 0.3}"), "{text}");
    assert!(!s.is_dirty());

    // A session that must end without asking keeps its edit for the next one.
    assert!(!s.apply(score("b", "T", NodeKind::Tool, 0.9)).failed());
    let said = s.end_without_asking(Vec::new());
    assert!(said.contains("unsaved edits written to"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text);

    let mut next = open(&path, state.path());
    let Some(Question::Recover { edits }) = next.offer_recovery().question else {
        panic!("no recovery offered");
    };
    assert_eq!(edits.len(), 1);
    let out = next.recover(edits);
    assert!(!out.failed(), "{out:?}");
    assert!(
        next.offer_recovery() == Outcome::default(),
        "the recovery file is dropped"
    );
    assert!(!next.save().failed());
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("{name: T, score: 0.9}"), "{text}");
}

/// A session on `FILE` whose view has moved the threshold to 0.7 (pending, unsaved), and
/// another writer that then saves 0.6 for the same operator.
fn pending_threshold_overwritten_on_disk(state: &Path, path: &Path) -> (Session, Operator) {
    std::fs::write(path, FILE).expect("write");
    let mut s = open(path, state);
    s.params.threshold = 0.7;
    let shown = op(&s);
    assert!(s.pending_params(Some(&shown)).threshold);
    assert!(!s.is_dirty(), "only the parameter is pending");
    let theirs = FILE.replace("threshold: 0.5", "threshold: 0.6");
    std::fs::write(path, theirs).expect("write");
    assert_eq!(
        s.queue(WatchEvent::Changed([path.to_path_buf()].into())),
        None
    );
    (s, shown)
}

/// Issue 27, item 1: a pending threshold is an edit like any other. A change on disk to the
/// file it would be written to asks the conflict question; it is never reloaded under the
/// pending value and then written over the other writer's.
#[test]
fn a_change_on_disk_under_a_pending_threshold_asks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state dir");
    let path = dir.path().join("kit.yaml");
    let (mut s, shown) = pending_threshold_overwritten_on_disk(state.path(), &path);
    let out = s.flush(Some(&shown));
    assert_eq!(
        out.question,
        Some(Question::Conflict {
            paths: vec![path.clone()]
        }),
        "{out:?}"
    );
    // Saving now refuses, as with any other pending edit.
    let out = s.save();
    assert!(out.failed(), "{out:?}");
    let on_disk = std::fs::read_to_string(&path).expect("read");
    assert!(on_disk.contains("threshold: 0.6"), "{on_disk}");
}

/// The three answers to that question handle the pending threshold as an edit.
#[test]
fn reload_reapply_and_keep_mine_handle_a_pending_threshold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state dir");
    let path = dir.path().join("kit.yaml");

    // Reload drops mine: the view's threshold follows theirs, nothing is pending.
    let (mut s, shown) = pending_threshold_overwritten_on_disk(state.path(), &path);
    assert!(s.flush(Some(&shown)).question.is_some());
    let shown = op(&s);
    let pending = s.pending_params(Some(&shown));
    assert!(!s.reload().failed());
    s.follow_params(&op(&s), pending);
    assert_eq!(s.params.threshold, 0.6);
    assert!(!s.is_dirty());
    assert!(!s.pending_params(Some(&op(&s))).threshold);

    // Reapply puts mine onto theirs, said as such; the save writes it.
    let (mut s, shown) = pending_threshold_overwritten_on_disk(state.path(), &path);
    assert!(s.flush(Some(&shown)).question.is_some());
    let out = s.reapply();
    assert!(!out.failed(), "{out:?}");
    assert!(!s.save().failed());
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("threshold: 0.7"), "{text}");

    // Keep mine: the save overwrites theirs, knowingly.
    let (mut s, shown) = pending_threshold_overwritten_on_disk(state.path(), &path);
    assert!(s.flush(Some(&shown)).question.is_some());
    assert!(!s.keep_mine(std::slice::from_ref(&path)).failed());
    assert!(!s.save().failed());
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("threshold: 0.7"), "{text}");
}

/// `:reload` with only a pending threshold, after a change on disk the watcher has not
/// reported yet, asks too: reloading would drop it.
#[test]
fn reload_asking_counts_a_pending_threshold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state dir");
    let path = dir.path().join("kit.yaml");
    let (mut s, shown) = pending_threshold_overwritten_on_disk(state.path(), &path);
    let out = s.reload_asking(Some(&shown));
    assert!(
        matches!(out.question, Some(Question::Conflict { .. })),
        "{out:?}"
    );
}

/// Beyond issue 27: the toolkit file replaced by a FIFO while an edit is pending. The
/// conflict check read it whole, so the batch of watcher events (and the save) blocked on
/// the FIFO for good; it is a change like any other now, found without waiting.
#[test]
fn a_fifo_in_place_of_the_file_is_a_conflict_not_a_hang() {
    use crate::model::NodeKind;
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state dir");
    let path = dir.path().join("kit.yaml");
    std::fs::write(&path, FILE).expect("write");
    let mut s = open(&path, state.path());
    assert!(!s.apply(score("a", "b", NodeKind::Action, 0.7)).failed());
    std::fs::remove_file(&path).expect("remove");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    s.queue(WatchEvent::Changed([path.clone()].into()));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let flushed = s.flush(None);
        let saved = s.save();
        let _ = tx.send((flushed, saved));
    });
    let (flushed, saved) = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the flush and the save blocked on the FIFO");
    assert!(
        matches!(flushed.question, Some(Question::Conflict { .. })),
        "{flushed:?}"
    );
    assert!(saved.failed(), "{saved:?}");
}
