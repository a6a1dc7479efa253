//! The `:` command line: parsing and running commands. Arguments run to the end of the
//! line, so names with spaces work (`:operator Query Expert/1`).

use crate::model::NodeKind;

use super::app::{App, Level};

/// Commands the command line knows, for help and (later) completion.
pub const COMMANDS: &[&str] = &[
    "operator",
    "goto",
    "seed",
    "threshold",
    "hops",
    "baseline",
    "export",
    "help",
    "q",
    "quit",
];

/// Runs one command line (without the leading `:`).
pub fn run(app: &mut App, line: &str) {
    let line = line.trim();
    let (cmd, arg) = match line.split_once(char::is_whitespace) {
        Some((c, a)) => (c, a.trim()),
        None => (line, ""),
    };
    if let Some(r) = super::edit::command_line(app, cmd, arg) {
        if let Err(e) = r {
            app.set_status(Level::Error, e);
        }
        return;
    }
    let result = match cmd {
        "" => Ok(()),
        "operator" | "op" => operator(app, arg),
        "goto" | "g" => goto(app, arg),
        "seed" => seed(app, arg),
        "threshold" | "t" => threshold(app, arg),
        "hops" | "h" => hops(app, arg),
        "baseline" => super::insight_cmds::baseline_command(app, arg),
        "export" => super::insight_cmds::export_command(app, arg, false),
        "export!" => super::insight_cmds::export_command(app, arg, true),
        "help" => {
            app.overlay = Some(super::app::Overlay::Help);
            Ok(())
        }
        other => Err(format!(
            "unknown command `{other}`; commands: {}",
            super::complete::COMMANDS.join(", ")
        )),
    };
    if let Err(e) = result {
        app.set_status(Level::Error, e);
    }
}

fn operator(app: &mut App, name: &str) -> Result<(), String> {
    let i = app
        .tk
        .operators
        .iter()
        .position(|o| o.name == name || o.label() == name || o.anchor.as_deref() == Some(name))
        .ok_or_else(|| {
            let names: Vec<&str> = app.tk.operators.iter().map(|o| o.name.as_str()).collect();
            format!("no operator `{name}`; operators: {}", names.join(", "))
        })?;
    app.choose_operator(i);
    app.set_status(
        Level::Info,
        format!("operator {}", app.tk.operators[i].name),
    );
    Ok(())
}

fn goto(app: &mut App, name: &str) -> Result<(), String> {
    let ix = find_node(app, name)?;
    app.select(ix);
    app.centre_on_selection();
    Ok(())
}

/// A node by exact name, else the one node whose name contains `name` (ignoring case).
fn find_node(app: &App, name: &str) -> Result<petgraph::stable_graph::NodeIndex, String> {
    let kinds = [NodeKind::Action, NodeKind::Tool, NodeKind::Group];
    if let Some(ix) = kinds.into_iter().find_map(|k| app.tk.find(k, name)) {
        return Ok(ix);
    }
    let needle = name.to_lowercase();
    let hits: Vec<_> = app
        .tk
        .graph
        .node_indices()
        .filter(|&ix| app.tk.name(ix).to_lowercase().contains(&needle))
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no node named `{name}`")),
        many => {
            let mut names: Vec<&str> = many.iter().map(|&ix| app.tk.name(ix)).collect();
            names.sort_unstable();
            names.truncate(5);
            Err(format!(
                "`{name}` matches {} nodes: {}, ...",
                many.len(),
                names.join(", ")
            ))
        }
    }
}

fn seed(app: &mut App, name: &str) -> Result<(), String> {
    let ix = app
        .tk
        .action(name)
        .ok_or_else(|| format!("no action named `{name}`"))?;
    super::update::toggle_seed(app, ix);
    Ok(())
}

fn threshold(app: &mut App, v: &str) -> Result<(), String> {
    let t: f64 = v.parse().map_err(|_| format!("`{v}` is not a number"))?;
    if !(0.0..=1.0).contains(&t) {
        return Err(format!("threshold {v} is outside [0, 1]"));
    }
    app.params.threshold = t;
    app.recompute();
    Ok(())
}

fn hops(app: &mut App, v: &str) -> Result<(), String> {
    let h: u32 = v.parse().map_err(|_| format!("`{v}` is not a hop count"))?;
    if h > 1000 {
        return Err("hops must be at most 1000".into());
    }
    app.params.hops = h;
    app.recompute();
    Ok(())
}
