//! The recommendation's parameters: threshold, hops, seeds and the active operator. The
//! values live in the editing session (`session.params`, pending until saved) and the app
//! (seeds, operator); their commands are here (the parameter bar is drawn by `view::bar`).

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::NodeKind;
use toolscope_core::recommend::MAX_HOPS;

use crate::tui::action::{Action, ParamsAction};
use crate::tui::ctx::Ctx;
use crate::tui::update::row::{Command, cmd};

/// A threshold key's step, and the fine step.
const STEP: f64 = 0.05;
const FINE: f64 = 0.01;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("threshold-up", [], None, "", Recommendation hint "threshold" keys "+/-", "threshold + 0.05", @Params |c, _| Ok(nudge_threshold(c, STEP))),
    cmd!("threshold-down", [], None, "", Recommendation, "threshold - 0.05", @Params |c, _| Ok(nudge_threshold(c, -STEP))),
    cmd!("threshold-up-fine", [], None, "", Recommendation, "threshold + 0.01", @Params |c, _| Ok(nudge_threshold(c, FINE))),
    cmd!("threshold-down-fine", [], None, "", Recommendation, "threshold - 0.01", @Params |c, _| Ok(nudge_threshold(c, -FINE))),
    cmd!("hops-up", [], None, "", Recommendation hint "hops" keys "[/]", "one more hop", @Params |c, _| Ok(set_hops(c.params.hops.saturating_add(1)))),
    cmd!("hops-down", [], None, "", Recommendation, "one hop fewer", @Params |c, _| Ok(set_hops(c.params.hops.saturating_sub(1)))),
    cmd!("toggle-seed", [], None, "", Recommendation hint "seed", "seed / unseed the selected action", @Params |c, _| {
        toggle_seed(c, c.selected.ok_or("no node selected")?)
    }),
    cmd!("seed", [], Actions, "ACTION", Recommendation, "seed / unseed an action", @Params seed),
    cmd!("clear-seeds", [], None, "", Recommendation, "clear all seeds", @Params |_, _| Ok(vec![Action::Params(ParamsAction::Seeds(Vec::new()))])),
    cmd!("next-operator", [], None, "", Recommendation hint "operator", "next operator (its seeds, threshold, hops)", @Params |c, _| Ok(cycle_operator(c, 1))),
    cmd!("prev-operator", [], None, "", Recommendation, "previous operator", @Params |c, _| Ok(cycle_operator(c, -1))),
    cmd!("operator", ["op"], Operators, "NAME", Recommendation, "make an operator active", @Params operator),
];

fn nudge_threshold(c: &Ctx, delta: f64) -> Vec<Action> {
    let t = ((c.params.threshold + delta) * 100.0).round() / 100.0;
    vec![Action::Params(ParamsAction::Threshold(t.clamp(0.0, 1.0)))]
}

fn set_hops(h: u32) -> Vec<Action> {
    vec![Action::Params(ParamsAction::Hops(h.min(MAX_HOPS)))]
}

/// Adds or removes an action from the seeds.
fn toggle_seed(c: &Ctx, ix: NodeIndex) -> Result<Vec<Action>, String> {
    if c.tk.kind(ix) != NodeKind::Action {
        return Err("only actions can be seeds".into());
    }
    let mut seeds = c.seeds.to_vec();
    match seeds.iter().position(|&s| s == ix) {
        Some(i) => {
            seeds.remove(i);
        }
        None => seeds.push(ix),
    }
    Ok(vec![Action::Params(ParamsAction::Seeds(seeds))])
}

/// `o`/`O`: the next or previous operator in the navigator's (natural name) order.
fn cycle_operator(c: &Ctx, delta: isize) -> Vec<Action> {
    let ops = &c.tk.operators;
    if ops.is_empty() {
        return vec![Action::info("this toolkit has no operators".into())];
    }
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by(|a, b| crate::tui::navigator::natural_cmp(&ops[*a].name, &ops[*b].name));
    let n = order.len() as isize;
    let at = match c.operator.and_then(|i| order.iter().position(|&o| o == i)) {
        Some(p) => (p as isize + delta).rem_euclid(n),
        None => 0,
    };
    vec![Action::Params(ParamsAction::Operator {
        index: order[at as usize],
        announce: false,
    })]
}

/// `:operator NAME`: a name several operators share (operators of one name in several
/// files, shown as `NAME @ FILE`) is refused with the choices, as `--operator` is.
fn operator(c: &Ctx, name: &str) -> Result<Vec<Action>, String> {
    let op = c.tk.one_operator(name).map_err(|e| e.to_string())?;
    let index =
        c.tk.operators
            .iter()
            .position(|o| std::ptr::eq(o, op))
            .ok_or("the operator is gone")?;
    Ok(vec![Action::Params(ParamsAction::Operator {
        index,
        announce: true,
    })])
}

fn seed(c: &Ctx, name: &str) -> Result<Vec<Action>, String> {
    let ix =
        c.tk.action(name)
            .ok_or_else(|| format!("no action named `{name}`"))?;
    toggle_seed(c, ix)
}
