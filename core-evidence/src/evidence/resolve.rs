//! What the evaluations share, below both `eval` and `steps`: the options every record
//! is read under, a record's operator and parameters, the tool a called name means, and
//! the TS082 warnings for records naming nothing, one per condition and file.

use std::collections::HashMap;

use petgraph::stable_graph::NodeIndex;

use super::lines::diag;
use super::{Record, Target};
use crate::diag::{Code, Diagnostic};
use crate::model::{EdgeKind, NodeKind, Operator, Toolkit};
use crate::recommend::{Params, ToolFilters, resolve_seeds};

/// What the command line decides for every record.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions {
    pub threshold: Option<f64>,
    pub hops: Option<u32>,
    /// The filters stage (`--offered`, `--choose`); `None`: the recommendation's tools.
    pub filters: Option<ToolFilters>,
    /// Compute `steps` and `suggested` per operator.
    pub sweep: bool,
    /// Completeness the suggestion must keep (1.0 when not given).
    pub min_complete: Option<f64>,
}

/// A record's group (the operator's name, or `seeds:A,B` with the names sorted), seeds and
/// parameters (the options win, then the record, then the operator); the message of the
/// TS082 warning when it names no operator (or its seeds name no action).
pub(crate) fn target_of(
    tk: &Toolkit,
    r: &Record,
    opts: &EvalOptions,
) -> Result<(String, Vec<NodeIndex>, Params), String> {
    let (group, names, base) = match &r.target {
        Target::Operator(name) => match tk.operator(name) {
            Some(op) => (op.name.clone(), op.actions.clone(), (op.threshold, op.hops)),
            None => return Err(format!("no operator named `{name}`; record ignored")),
        },
        Target::Seeds(names) => {
            let mut sorted = names.clone();
            sorted.sort();
            let defaults = (Operator::DEFAULT_THRESHOLD, Operator::DEFAULT_HOPS);
            (
                format!("seeds:{}", sorted.join(",")),
                names.clone(),
                defaults,
            )
        }
    };
    let (seeds, unknown_seeds) = resolve_seeds(tk, &names);
    if seeds.is_empty() && matches!(r.target, Target::Seeds(_)) {
        return Err(format!(
            "no seed names an action ({}); record ignored",
            unknown_seeds.join(", ")
        ));
    }
    let params = Params {
        threshold: opts.threshold.or(r.threshold).unwrap_or(base.0),
        hops: opts.hops.or(r.hops).unwrap_or(base.1),
    };
    Ok((group, seeds, params))
}

/// The group a record belongs to (the operator's name, or `seeds:A,B`), `None` when it
/// names no operator (or its seeds name no action).
pub fn group_of(tk: &Toolkit, r: &Record) -> Option<String> {
    target_of(tk, r, &EvalOptions::default()).ok().map(|t| t.0)
}

/// The tool a called name means: a Tool, else a Group, else the MCP member a qualified
/// name `SERVER/TOOL` means.
pub fn tool_named(tk: &Toolkit, name: &str) -> Option<NodeIndex> {
    tk.find(NodeKind::Tool, name)
        .or_else(|| tk.find(NodeKind::Group, name))
        .or_else(|| tk.member_named(name))
}

/// The tools `names` make available into `buf` (sorted, distinct): each tool, and each
/// group with its members.
pub(crate) fn available_tools(tk: &Toolkit, names: &[String], buf: &mut Vec<NodeIndex>) {
    buf.clear();
    for n in names {
        if let Some(ix) = tool_named(tk, n) {
            buf.push(ix);
            if tk.kind(ix) == NodeKind::Group {
                buf.extend(members(tk, ix));
            }
        }
    }
    buf.sort_unstable();
    buf.dedup();
}

/// The member tools of a group (`Has` edges).
pub(crate) fn members(tk: &Toolkit, g: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
    tk.out_edges(g)
        .filter(move |&(e, _)| tk.graph[e].kind == EdgeKind::Has)
        .map(|(_, t)| t)
}

/// TS082 warnings for records naming no operator (or seeds naming no action), one per
/// file and message with the number of records it stands for: a 100 MB file of one
/// unknown operator is one line, not 80,000.
#[derive(Debug, Default)]
pub struct Unresolved {
    at: HashMap<(String, String), usize>,
    found: Vec<(Diagnostic, u64)>,
}

impl Unresolved {
    /// Counts `r` under `message`; returns the bytes this newly kept.
    pub fn push(&mut self, r: &Record, message: String) -> usize {
        let key = (r.file.clone(), message);
        if let Some(&i) = self.at.get(&key) {
            self.found[i].1 += 1;
            return 0;
        }
        let bytes = std::mem::size_of::<Diagnostic>() + 2 * (key.0.len() + key.1.len()) + 64;
        let d = diag(&r.file, r.line, 1, Code::TraceUnknownTarget, key.1.clone());
        self.at.insert(key, self.found.len());
        self.found.push((d, 1));
        bytes
    }

    /// The warnings, at the first record of each; a count when more records share one.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.found
            .iter()
            .map(|(d, n)| {
                let mut d = d.clone();
                if *n > 1 {
                    d.message = format!("{} ({n} records in this file, the first here)", d.message);
                }
                d
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43 item 5: 79,960 lines for one unknown operator in a 100 MB file.
    #[test]
    fn unknown_targets_are_one_line_per_file_and_name_with_a_count() {
        let rec = |file: &str, line: u32, op: &str| {
            let mut r = Record::operator(op, &[]);
            r.file = file.into();
            r.line = line;
            r
        };
        let mut u = Unresolved::default();
        let kept: Vec<usize> = [
            rec("a", 3, "X"),
            rec("a", 9, "X"),
            rec("a", 10, "Y"),
            rec("b", 1, "X"),
        ]
        .iter()
        .map(|r| {
            u.push(
                r,
                format!(
                    "no operator named `{}`",
                    match &r.target {
                        Target::Operator(n) => n.as_str(),
                        Target::Seeds(_) => "",
                    }
                ),
            )
        })
        .collect();
        assert!(kept[0] > 0 && kept[1] == 0, "a repeat keeps nothing new");
        let got: Vec<(String, u32, String)> = u
            .diagnostics()
            .into_iter()
            .map(|d| (d.file, d.line, d.message))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "a".into(),
                    3,
                    "no operator named `X` (2 records in this file, the first here)".into()
                ),
                ("a".into(), 10, "no operator named `Y`".into()),
                ("b".into(), 1, "no operator named `X`".into()),
            ]
        );
    }
}
