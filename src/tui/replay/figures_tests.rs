//! One set of figures (issue 44 item 5): on the committed learned kit and its op0 runs,
//! the evidence panel `V` and the tune list `t` say what the core's one tally says
//! (`steps::figures`, which `eval --steps --sweep` and `fit` report: tests/suite/figures.rs
//! pins those to it): step recall over the calls after the first, first calls apart,
//! tokens from the same tally; `t` at a first call's miss ranks by the first calls.

use toolscope_core::evidence::steps::figures::{Basis, Figures, figures};
use toolscope_core::evidence::steps::replay::replay;
use toolscope_core::evidence::steps::tune::rank;
use toolscope_core::evidence::steps::{StepCounter, StepOptions};
use toolscope_core::model::NodeKind;
use toolscope_core::recommend::{Params, recommend};
use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};

use crate::tui::app::App;
use crate::tui::editing::tests::{Fixture, fixture, keys, open};
use crate::tui::tests::screen;

const TK: &str = include_str!("../../../tests/fixtures/replay/learned-kit.yaml");
const RUNS: &str = include_str!("../../../tests/fixtures/replay/learned-runs.jsonl");

/// The kit open on op0 (the first operator by name) with op0's runs loaded, and one run
/// more whose first call op0's own offer lacks (a first call's miss).
fn setup() -> (Fixture, App) {
    let f = fixture(TK);
    let mut app = open(&f.path);
    let op = app.tk.operator("op0").expect("op0").clone();
    let seeds: Vec<_> = op.actions.iter().filter_map(|a| app.tk.action(a)).collect();
    let params = Params {
        threshold: op.threshold,
        hops: op.hops,
    };
    let offer = recommend(&app.tk, &seeds, params).tools;
    let lacking = app
        .tk
        .nodes_of(NodeKind::Tool)
        .find(|t| !offer.contains(t))
        .map(|t| app.tk.name(t).to_string())
        .expect("a tool op0 does not offer first");
    let mut runs_text: String = RUNS
        .lines()
        .filter(|l| l.contains("\"op0\""))
        .map(|l| format!("{l}\n"))
        .collect();
    runs_text += &format!("{{\"operator\": \"op0\", \"calls\": [\"{lacking}\", \"t0\"]}}\n");
    let runs = f.path.with_file_name("runs.jsonl");
    std::fs::write(&runs, runs_text).expect("write runs");
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    (f, app)
}

/// The one tally at the view's setting, counted as `eval --steps` counts (o200k_base).
fn expected(app: &App) -> Figures {
    let tokenizer = Tokenizer::new(Encoding::default());
    let cost = ToolTokens::new(&app.tk, &tokenizer);
    let at = StepOptions {
        threshold: Some(app.session.params.threshold),
        hops: Some(app.session.params.hops),
        ..StepOptions::default()
    };
    let records = app.evidence.records();
    let want = figures(&app.tk, records, at, &cost);
    // The view opened at op0's own setting: the runs' own parameters give the same.
    assert_eq!(
        want,
        figures(&app.tk, records, StepOptions::default(), &cost)
    );
    assert!(want.steps.recall() != want.first.recall(), "{want:?}");
    want
}

/// The first miss of op0's runs at the view's setting, at step 0 (`first`) or after it:
/// (record from 1, step).
fn miss(app: &App, first: bool) -> Option<(usize, usize)> {
    let at = Some(app.session.params);
    for (i, r) in app.evidence.records().iter().enumerate() {
        let mut played = replay(&app.tk, r, at, 1).expect("replays");
        for (k, s) in played.all_steps(&app.tk).iter().enumerate() {
            if (k == 0) == first && !s.hit && s.target.is_some() {
                return Some((i + 1, k));
            }
        }
    }
    None
}

#[test]
fn the_evidence_panel_says_the_one_tallys_figures() {
    let (_f, mut app) = setup();
    let want = expected(&app);
    keys(&mut app, "V");
    let steps = app.evidence.steps().expect("steps evaluated");
    assert_eq!(Figures::of(steps), want);
    // The suggestion `eval --steps --sweep` names for these runs (its counter, swept at
    // the runs' own parameters): the same setting, with the same first calls there.
    let tokenizer = Tokenizer::new(Encoding::default());
    let cost = ToolTokens::new(&app.tk, &tokenizer);
    let mut eval = StepCounter::new(
        &app.tk,
        StepOptions {
            sweep: true,
            ..StepOptions::default()
        },
    );
    for r in app.evidence.records() {
        eval.add(r);
    }
    let named = eval.finish(&cost).overall.suggested.expect("a suggestion");
    let shown = steps.suggested.clone().expect("V suggests");
    assert_eq!(
        (shown.threshold, shown.hops, shown.first_recall),
        (named.threshold, named.hops, named.first_recall)
    );
    let s = screen(&app);
    let r = |x: Option<f64>| format!("{:.2}", x.expect("a figure"));
    for figure in [
        format!("step recall {}", r(want.steps.recall())),
        format!("~tokens/step {:.0}", want.steps.tokens),
        format!("first calls {}", r(want.first.recall())),
        format!("steps {}", want.steps.calls),
    ] {
        assert!(s.contains(&figure), "{figure:?}:\n{s}");
    }
}

#[test]
fn the_tune_list_measures_with_the_one_tally_and_ranks_a_first_call_by_its_figure() {
    let (_f, mut app) = setup();
    let want = expected(&app);
    let (record, step) = miss(&app, false).expect("a miss after a first call");
    keys(&mut app, &format!(":replay {record} {step}<Enter>t"));
    let run = app.replay.run().expect("replaying");
    let tune = run.tune.as_ref().expect("the tune list");
    assert!(!tune.list.is_empty(), "{:?}", tune.note);
    for c in &tune.list {
        assert_eq!(c.before, want, "{c:?}");
        assert_eq!(c.basis, Basis::Steps);
    }
    let s = screen(&app);
    let line = format!(
        "step recall {:.2}->",
        want.steps.recall().expect("a figure")
    );
    assert!(s.contains(&line), "{line:?}:\n{s}");
    assert!(s.contains("first calls "), "{s}");

    // The run whose first call op0 does not offer: its candidates are ranked by the
    // first calls' figure.
    keys(&mut app, "<Esc><Esc>");
    let (record, step) = miss(&app, true).expect("a first call missed");
    assert_eq!(step, 0);
    keys(&mut app, &format!(":replay {record} 0<Enter>t"));
    let run = app.replay.run().expect("replaying");
    let tune = run.tune.as_ref().expect("the tune list");
    assert!(!tune.list.is_empty(), "{:?}", tune.note);
    for c in &tune.list {
        assert_eq!(c.basis, Basis::FirstCalls);
    }
    for w in tune.list.windows(2) {
        assert_ne!(rank(&w[0], &w[1]), std::cmp::Ordering::Greater);
    }
    let best = &tune.list[0];
    assert!(best.gain() > 0.0, "the first call's figure gains: {best:?}");
    let s = screen(&app);
    assert!(s.contains("> "), "{s}");
    assert!(s.contains("first calls "), "{s}");
}
