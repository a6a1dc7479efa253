//! The recommendation's parameters: threshold, hops, seeds and the active operator. The
//! values live in the editing session (`session.params`, pending until saved) and the app
//! (seeds, operator); their commands are here, the parameter bar in `bar`.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::NodeKind;
use toolscope_core::recommend::MAX_HOPS;

use crate::tui::app::{App, Level};
use crate::tui::row::{Command, cmd};

/// A threshold key's step, and the fine step.
const STEP: f64 = 0.05;
const FINE: f64 = 0.01;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("threshold-up", [], None, "", Recommendation hint "threshold" keys "+/-", "threshold + 0.05", |a, _| nudge_threshold(a, STEP)),
    cmd!("threshold-down", [], None, "", Recommendation, "threshold - 0.05", |a, _| nudge_threshold(a, -STEP)),
    cmd!("threshold-up-fine", [], None, "", Recommendation, "threshold + 0.01", |a, _| nudge_threshold(a, FINE)),
    cmd!("threshold-down-fine", [], None, "", Recommendation, "threshold - 0.01", |a, _| nudge_threshold(a, -FINE)),
    cmd!("hops-up", [], None, "", Recommendation hint "hops" keys "[/]", "one more hop", |a, _| set_hops(a, a.session.params.hops.saturating_add(1))),
    cmd!("hops-down", [], None, "", Recommendation, "one hop fewer", |a, _| set_hops(a, a.session.params.hops.saturating_sub(1))),
    cmd!("toggle-seed", [], None, "", Recommendation hint "seed", "seed / unseed the selected action", |a, _| {
        let ix = a.selected.ok_or("no node selected")?;
        toggle_seed(a, ix)
    }),
    cmd!("seed", [], Actions, "ACTION", Recommendation, "seed / unseed an action", seed),
    cmd!("clear-seeds", [], None, "", Recommendation, "clear all seeds", |a, _| {
        a.seeds.clear();
        a.seeds_edited = true;
        a.kept = Default::default();
        a.recompute();
        Ok(())
    }),
    cmd!("next-operator", [], None, "", Recommendation hint "operator", "next operator (its seeds, threshold, hops)", |a, _| cycle_operator(a, 1)),
    cmd!("prev-operator", [], None, "", Recommendation, "previous operator", |a, _| cycle_operator(a, -1)),
    cmd!("operator", ["op"], Operators, "NAME", Recommendation, "make an operator active", operator),
];

fn nudge_threshold(app: &mut App, delta: f64) -> Result<(), String> {
    let t = ((app.session.params.threshold + delta) * 100.0).round() / 100.0;
    app.session.params.threshold = t.clamp(0.0, 1.0);
    app.recompute();
    Ok(())
}

fn set_hops(app: &mut App, h: u32) -> Result<(), String> {
    app.session.params.hops = h.min(MAX_HOPS);
    app.recompute();
    Ok(())
}

/// Adds or removes an action from the seeds.
pub fn toggle_seed(app: &mut App, ix: NodeIndex) -> Result<(), String> {
    if app.tk.kind(ix) != NodeKind::Action {
        return Err("only actions can be seeds".into());
    }
    match app.seeds.iter().position(|&s| s == ix) {
        Some(i) => {
            app.seeds.remove(i);
        }
        None => app.seeds.push(ix),
    }
    app.seeds_edited = true;
    app.kept = Default::default();
    app.recompute();
    Ok(())
}

/// `o`/`O`: the next or previous operator in the navigator's (natural name) order.
fn cycle_operator(app: &mut App, delta: isize) -> Result<(), String> {
    let ops = &app.tk.operators;
    if ops.is_empty() {
        app.set_status(Level::Info, "this toolkit has no operators");
        return Ok(());
    }
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by(|a, b| crate::tui::navigator::natural_cmp(&ops[*a].name, &ops[*b].name));
    let n = order.len() as isize;
    let at = match app
        .operator
        .and_then(|i| order.iter().position(|&o| o == i))
    {
        Some(p) => (p as isize + delta).rem_euclid(n),
        None => 0,
    };
    crate::tui::editing::choose_operator(app, order[at as usize]);
    Ok(())
}

/// `:operator NAME`: a name several operators share (operators of one name in several
/// files, shown as `NAME @ FILE`) is refused with the choices, as `--operator` is.
fn operator(app: &mut App, name: &str) -> Result<(), String> {
    let op = app.tk.one_operator(name).map_err(|e| e.to_string())?;
    let i = app
        .tk
        .operators
        .iter()
        .position(|o| std::ptr::eq(o, op))
        .ok_or("the operator is gone")?;
    crate::tui::editing::choose_operator(app, i);
    app.set_status(
        Level::Info,
        format!("operator {}", app.tk.operators[i].name),
    );
    Ok(())
}

fn seed(app: &mut App, name: &str) -> Result<(), String> {
    let ix = app
        .tk
        .action(name)
        .ok_or_else(|| format!("no action named `{name}`"))?;
    toggle_seed(app, ix)
}
