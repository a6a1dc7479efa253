//! The edits `toolscope set` offers, and how their arguments become an [`Edit`].

use std::io::Read;

use clap::Subcommand;

use crate::cli::common::{Kind, parse_threshold};
use toolscope_core::edit::Edit;
use toolscope_core::model::{NodeKind, Toolkit};

#[derive(Debug, Subcommand)]
pub enum What {
    /// Set the score of the edge FROM -> TO (a number in [0, 1]).
    Score {
        /// The action the edge leaves.
        from: String,
        /// The action, tool or group it reaches.
        to: String,
        /// The new score.
        #[arg(value_parser = parse_threshold)]
        value: f64,
    },
    /// Set an operator's threshold (a number in [0, 1]).
    Threshold {
        /// Operator name (Chat2Graph: `<expert>/<n>`, `leader`, or the anchor name).
        operator: String,
        /// The new threshold.
        #[arg(value_parser = parse_threshold)]
        value: f64,
    },
    /// Set an operator's hop count.
    Hops {
        /// Operator name (Chat2Graph: `<expert>/<n>`, `leader`, or the anchor name).
        operator: String,
        /// The new hop count, 0 to 1000.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=1000))]
        value: u32,
    },
    /// Replace a node's description with the text read from stdin.
    Desc {
        /// The action, tool or group.
        node: String,
        /// The node's kind, when the name is used by more than one kind.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
    /// Add the edge FROM -> TO (`next` to an action, `tools` to a tool or group).
    Link {
        /// The action the edge leaves.
        from: String,
        /// The action, tool or group it reaches.
        to: String,
        /// The edge's score (default 1.0).
        #[arg(value_parser = parse_threshold)]
        score: Option<f64>,
        /// TO's kind, when the name is used by more than one kind.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
    /// Remove the edge FROM -> TO.
    Unlink {
        /// The action the edge leaves.
        from: String,
        /// The action, tool or group it reaches.
        to: String,
    },
    /// Remove a node with its cascade (printed) and every reference to them.
    Remove {
        /// The action, tool or group.
        node: String,
        /// The node's kind, when the name is used by more than one kind.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
    /// Add an action.
    AddAction {
        name: String,
        /// Its description.
        #[arg(long, default_value = "")]
        desc: String,
    },
    /// Add a tool called by the given actions.
    AddTool {
        name: String,
        /// An action that calls the tool (repeatable).
        #[arg(long = "caller", value_name = "ACTION")]
        callers: Vec<String>,
        /// The score of each caller's edge (default 1.0).
        #[arg(long, value_parser = parse_threshold, default_value = "1.0")]
        score: f64,
        /// Its description.
        #[arg(long, default_value = "")]
        desc: String,
    },
    /// Enable or disable a tool or group (the filters stage drops disabled tools).
    Enabled {
        /// The tool or group.
        tool: String,
        /// `true` or `false`.
        #[arg(action = clap::ArgAction::Set)]
        value: bool,
        /// The node's kind, when the name is used by a tool and a group.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
}

pub fn build_edit(what: &What, tk: &Toolkit) -> Result<Edit, String> {
    Ok(match what {
        What::Score { from, to, value } => Edit::SetScore {
            from: from.clone(),
            to: to.clone(),
            to_kind: edge_kind(tk, from, to)?,
            score: *value,
        },
        What::Threshold { operator, value } => Edit::SetThreshold {
            operator: operator.clone(),
            value: *value,
        },
        What::Hops { operator, value } => Edit::SetHops {
            operator: operator.clone(),
            value: *value,
        },
        What::Desc { node, kind } => Edit::SetDesc {
            kind: node_kind(tk, node, kind.map(NodeKind::from))?,
            name: node.clone(),
            text: read_stdin()?,
        },
        What::Link {
            from,
            to,
            score,
            kind,
        } => {
            tk.action(from)
                .ok_or_else(|| format!("no action `{from}`"))?;
            Edit::AddEdge {
                from: from.clone(),
                to: to.clone(),
                to_kind: node_kind(tk, to, kind.map(NodeKind::from))?,
                score: score.unwrap_or(1.0),
            }
        }
        What::Unlink { from, to } => Edit::RemoveEdge {
            from: from.clone(),
            to: to.clone(),
            to_kind: edge_kind(tk, from, to)?,
        },
        What::Remove { node, kind } => Edit::RemoveNode {
            kind: node_kind(tk, node, kind.map(NodeKind::from))?,
            name: node.clone(),
        },
        What::AddAction { name, desc } => Edit::AddAction {
            name: name.clone(),
            desc: desc.clone(),
        },
        What::AddTool {
            name,
            callers,
            score,
            desc,
        } => Edit::AddTool {
            name: name.clone(),
            desc: desc.clone(),
            callers: callers.iter().map(|c| (c.clone(), *score)).collect(),
        },
        What::Enabled { tool, value, kind } => {
            let kind = node_kind(tk, tool, kind.map(NodeKind::from))?;
            if kind == NodeKind::Action {
                return Err(format!(
                    "`{tool}` is an action; only tools and groups are enabled or disabled"
                ));
            }
            Edit::SetEnabled {
                kind,
                name: tool.clone(),
                enabled: *value,
            }
        }
    })
}

/// The kind of the node an existing edge FROM -> TO reaches.
fn edge_kind(tk: &Toolkit, from: &str, to: &str) -> Result<NodeKind, String> {
    let a = tk
        .action(from)
        .ok_or_else(|| format!("no action `{from}`"))?;
    tk.named(to)
        .find(|b| tk.edge(a, *b).is_some())
        .map(|b| tk.kind(b))
        .ok_or_else(|| format!("no edge {from} -> {to}"))
}

fn node_kind(tk: &Toolkit, name: &str, given: Option<NodeKind>) -> Result<NodeKind, String> {
    let kinds: Vec<NodeKind> = tk.named(name).map(|ix| tk.kind(ix)).collect();
    match (given, kinds.as_slice()) {
        (Some(k), _) if kinds.contains(&k) => Ok(k),
        (Some(k), _) => Err(format!("no {} `{name}`", k.as_str())),
        (None, [k]) => Ok(*k),
        (None, []) => Err(format!("no node `{name}`")),
        (None, _) => Err(format!(
            "`{name}` names more than one kind of node; pass --kind"
        )),
    }
}

/// The description on stdin, read no further than the longest text a toolkit file may
/// hold (the loader's scalar limit): an endless input stops there, with the reason.
fn read_stdin() -> Result<String, String> {
    let max = toolscope_core::source::Limits::default().max_scalar_bytes;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("reading the description from stdin: {e}"))?;
    if bytes.len() > max {
        return Err(format!(
            "the description on stdin is longer than {max} bytes, the limit of one text in a toolkit file; stopped reading there, nothing written"
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("the description on stdin is not UTF-8: {e}"))?;
    let text = text.replace("\r\n", "\n");
    let single = text.trim_end_matches('\n').lines().count() <= 1;
    Ok(if single {
        text.trim_end_matches('\n').to_string()
    } else {
        text
    })
}
