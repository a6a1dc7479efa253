//! A native toolkit from tool definitions (`toolscope init`), and with trace records the
//! `Next` prior and the operators learned from them.
//!
//! One group per source holding its tools (descriptions and JSON Schemas kept, so token
//! counts come from them); one action per tool, `call <tool>`, calling it with score 1.0
//! (a name no tool, group or other action has: `call <tool> (2)` and so on otherwise).
//! With records: every action gets a `Next` edge to every action, scored by the
//! [`super::learn::prior`] weight of its tool (0 for a tool the runs never called),
//! and each operator name in the records becomes an operator seeded with the actions of
//! the tools its runs call first (threshold [`THRESHOLD`], hops 1); `fit` then learns the
//! transitions. Without records: no `Next` edges, and one operator per group seeded with
//! all its actions (hops 0: it offers the group's tools).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;

use super::defs::Source;
use super::learn::prior;
use super::{Record, Target};
use crate::model::{Node, NodeKind, Operator, ToolMeta, Toolkit};

/// The threshold of the operators `init` writes: low, because the prior's rows hold every
/// popular tool of every group and the run's `available` set does the cutting (the BFCL
/// study: best recall within 30% of the tokens near 0.02).
pub const THRESHOLD: f64 = 0.02;

/// A name defined by two definitions.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub name: String,
    pub first: String,
    pub second: String,
}

/// What `init` made, besides the toolkit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InitReport {
    pub tools: usize,
    pub groups: usize,
    pub next_edges: usize,
    /// Operators and how many records each came from.
    pub operators: Vec<(String, usize)>,
    /// Records naming seeds instead of an operator, or with no call of a defined tool
    /// first: not used for operators.
    pub skipped_records: usize,
    /// Step targets or first calls that name no defined tool.
    pub unknown_calls: usize,
}

/// The names defined more than once across the sources (tools, and group names that
/// clash with a tool or another group).
pub fn duplicates(sources: &[Source]) -> Vec<Duplicate> {
    // name -> where it was first defined. A group is named after its file (or the
    // sidecar's server): said, or a tool named like its file reads as "defined in x.json
    // and again in x.json".
    let mut seen: HashMap<&str, String> = HashMap::new();
    let mut out = Vec::new();
    for s in sources {
        let group = format!("{} (the name of the group init makes for it)", s.origin);
        let names = s.tools.iter().map(|t| (t.name.as_str(), s.origin.clone()));
        for (name, here) in names.chain(std::iter::once((s.group.as_str(), group))) {
            match seen.get(name) {
                Some(first) => out.push(Duplicate {
                    name: name.to_string(),
                    first: first.clone(),
                    second: here,
                }),
                None => {
                    seen.insert(name, here);
                }
            }
        }
    }
    out
}

/// The toolkit: the caller has checked [`duplicates`] is empty (a name defined twice is
/// reported, never merged silently).
pub fn build(name: &str, sources: &[Source], records: &[Record]) -> (Toolkit, InitReport) {
    let mut tk = Toolkit::new();
    tk.name = Some(name.to_string());
    let mut report = InitReport::default();
    let mut taken: HashSet<String> = HashSet::new();
    for s in sources {
        taken.insert(s.group.clone());
        taken.extend(s.tools.iter().map(|t| t.name.clone()));
    }
    let mut action_of: HashMap<NodeIndex, String> = HashMap::new();
    let mut group_of: HashMap<NodeIndex, usize> = HashMap::new();
    for (gi, s) in sources.iter().enumerate() {
        let group = tk.add_node(Node::new(NodeKind::Group, &s.group));
        report.groups += 1;
        for t in &s.tools {
            let mut node = Node::new(NodeKind::Tool, &t.name).with_desc(&t.description);
            node.meta = Some(Box::new(ToolMeta {
                inputs: t
                    .schema
                    .as_ref()
                    .map(crate::mcp::cache::params)
                    .unwrap_or_default(),
                input_schema: t.schema.clone(),
                ..ToolMeta::default()
            }));
            let tool = tk.add_node(node);
            tk.add_edge(group, tool, 1.0, None);
            let action = free_name(&format!("call {}", t.name), &mut taken);
            let a = tk.add_node(Node::new(NodeKind::Action, &action));
            tk.add_edge(a, tool, 1.0, None);
            action_of.insert(tool, action);
            group_of.insert(tool, gi);
            report.tools += 1;
        }
    }
    if records.is_empty() {
        group_operators(&mut tk, sources, &action_of);
    } else {
        learn_from(&mut tk, records, &action_of, &group_of, &mut report);
    }
    (tk, report)
}

/// Without runs: one operator per group, seeded with all its actions (hops 0: it offers
/// the group's tools), so every action starts one.
fn group_operators(tk: &mut Toolkit, sources: &[Source], action_of: &HashMap<NodeIndex, String>) {
    for s in sources {
        let actions: Vec<String> = s
            .tools
            .iter()
            .filter_map(|t| tk.find(NodeKind::Tool, &t.name))
            .filter_map(|x| action_of.get(&x).cloned())
            .collect();
        if !actions.is_empty() {
            let mut op = Operator::new(&s.group, actions);
            op.hops = 0;
            tk.operators.push(op);
        }
    }
}

/// `base`, or `base (2)`, `base (3)`... whichever no node has yet; marked taken.
fn free_name(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base} ({n})");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// The prior's `Next` edges and the operators.
fn learn_from(
    tk: &mut Toolkit,
    records: &[Record],
    action_of: &HashMap<NodeIndex, String>,
    group_of: &HashMap<NodeIndex, usize>,
    report: &mut InitReport,
) {
    // u(x): the steps (calls after a record's first) whose target is x.
    let mut targets = Vec::new();
    for r in records {
        for c in r.calls.iter().flatten().skip(1) {
            match super::eval::tool_named(tk, c).filter(|x| group_of.contains_key(x)) {
                Some(x) => targets.push(x),
                None => report.unknown_calls += 1,
            }
        }
    }
    let w = prior(targets, |x| group_of.get(&x).copied().unwrap_or(usize::MAX));
    // Every action to every action, scored by the target tool's weight: 0 for a tool the
    // runs never called, which then only a threshold of 0 offers (and lint sees every
    // action reachable).
    let mut tools: Vec<(NodeIndex, &String)> = action_of.iter().map(|(&x, a)| (x, a)).collect();
    tools.sort();
    let targets: Vec<(NodeIndex, f64)> = tools
        .iter()
        .filter_map(|&(x, name)| Some((tk.action(name)?, w.get(&x).copied().unwrap_or(0.0))))
        .collect();
    let actions: Vec<NodeIndex> = tk.nodes_of(NodeKind::Action).collect();
    for &a in &actions {
        for &(b, score) in &targets {
            tk.add_edge(a, b, score, None);
            report.next_edges += 1;
        }
    }
    operators(tk, records, action_of, report);
}

/// One operator per operator name, seeded with the actions of its runs' first calls.
fn operators(
    tk: &mut Toolkit,
    records: &[Record],
    action_of: &HashMap<NodeIndex, String>,
    report: &mut InitReport,
) {
    let mut firsts: BTreeMap<&str, (BTreeSet<&str>, usize)> = BTreeMap::new();
    for r in records {
        // An empty operator name names no operator: a toolkit cannot hold one.
        let Target::Operator(op) = &r.target else {
            report.skipped_records += 1;
            continue;
        };
        if op.trim().is_empty() {
            report.skipped_records += 1;
            continue;
        }
        let first = r.calls.as_ref().unwrap_or(&r.called).first();
        let action = first
            .and_then(|c| super::eval::tool_named(tk, c))
            .and_then(|x| action_of.get(&x));
        match action {
            Some(a) => {
                let e = firsts.entry(op.as_str()).or_default();
                e.0.insert(a.as_str());
                e.1 += 1;
            }
            None => {
                report.skipped_records += 1;
                if first.is_some() {
                    report.unknown_calls += 1;
                }
            }
        }
    }
    for (op, (actions, n)) in firsts {
        let mut o = Operator::new(op, actions.into_iter().map(str::to_string).collect());
        o.threshold = THRESHOLD;
        o.hops = 1;
        tk.operators.push(o);
        report.operators.push((op.to_string(), n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::defs::{DefKind, ToolDef};

    fn source(group: &str, tools: &[&str]) -> Source {
        Source {
            group: group.into(),
            origin: format!("{group}.json"),
            kind: DefKind::OpenAi,
            tools: tools
                .iter()
                .map(|t| ToolDef {
                    name: t.to_string(),
                    description: format!("Does {t}."),
                    schema: Some(serde_json::json!({"type": "object", "properties": {"p": {"type": "string"}}})),
                })
                .collect(),
        }
    }

    #[test]
    fn without_runs_each_group_is_an_operator() {
        let (tk, report) = build(
            "kit",
            &[source("fs", &["ls", "cd"]), source("net", &["get"])],
            &[],
        );
        assert_eq!(report.next_edges, 0);
        let ops: Vec<(&str, usize, u32)> = tk
            .operators
            .iter()
            .map(|o| (o.name.as_str(), o.actions.len(), o.hops))
            .collect();
        assert_eq!(ops, vec![("fs", 2, 0), ("net", 1, 0)]);
    }

    #[test]
    fn duplicates_are_reported_with_both_places() {
        let d = duplicates(&[
            source("fs", &["ls", "cd"]),
            source("net", &["get", "ls"]),
            source("cd", &[]),
        ]);
        let got: Vec<(&str, &str, &str)> = d
            .iter()
            .map(|d| (d.name.as_str(), d.first.as_str(), d.second.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("ls", "fs.json", "net.json"),
                (
                    "cd",
                    "fs.json",
                    "cd.json (the name of the group init makes for it)"
                )
            ]
        );
        // Issue 35 item 18: a tool named like its own file clashes with the group.
        let d = duplicates(&[source("fs", &["ls", "fs"])]);
        assert_eq!(
            (d[0].first.as_str(), d[0].second.as_str()),
            (
                "fs.json",
                "fs.json (the name of the group init makes for it)"
            )
        );
    }

    #[test]
    fn groups_tools_actions_prior_and_operators() {
        let sources = [
            source("fs", &["ls", "cd", "call cd"]),
            source("net", &["get"]),
        ];
        let records = vec![
            Record::ordered("A", &["ls", "cd", "ls", "get"]),
            Record::ordered("A", &["cd", "cd"]),
            Record::ordered("B", &["get", "nope"]),
            Record::ordered("B", &["nope"]),
        ];
        let (tk, report) = build("kit", &sources, &records);
        assert_eq!((report.tools, report.groups), (4, 2));
        // `call cd` is a tool, so the action of `cd` is `call cd (2)`.
        assert!(tk.action("call cd (2)").is_some());
        assert!(tk.action("call call cd").is_some());
        let ls = tk.find(NodeKind::Tool, "ls").unwrap();
        assert_eq!(tk.node(ls).meta.as_ref().unwrap().inputs.len(), 1);
        // Step targets: cd, ls, get, cd; nope unknown. fs: cd 2/3, ls 1/3; net: get 1.
        let a = tk.action("call ls").unwrap();
        let cd = tk.action("call cd (2)").unwrap();
        let get = tk.action("call get").unwrap();
        assert_eq!(tk.get_score(a, get), 1.0);
        assert_eq!(tk.get_score(a, cd), 0.6667);
        assert_eq!(tk.get_score(cd, a), 0.3333);
        // Every action to every action; `call call cd`'s tool was never called: score 0.
        assert_eq!(report.next_edges, 4 * 4);
        assert_eq!(tk.get_score(get, tk.action("call call cd").unwrap()), 0.0);
        assert_eq!(report.unknown_calls, 2);
        let ops: Vec<(&str, Vec<String>)> = tk
            .operators
            .iter()
            .map(|o| (o.name.as_str(), o.actions.clone()))
            .collect();
        assert_eq!(
            ops,
            vec![
                ("A", vec!["call cd (2)".to_string(), "call ls".into()]),
                ("B", vec!["call get".into()])
            ]
        );
        assert_eq!(report.skipped_records, 1);
        assert_eq!(tk.operators[0].threshold, THRESHOLD);
    }

    /// Found by the `init_roundtrip` fuzz target: a record with `"operator": ""` made an
    /// operator the loader refuses (an operator without a name).
    #[test]
    fn an_empty_operator_name_makes_no_operator() {
        let sources = [source("fs", &["ls", "cd"])];
        let records = vec![
            Record::ordered("", &["ls", "cd"]),
            Record::ordered(" ", &["cd"]),
            Record::ordered("A", &["ls"]),
        ];
        let (tk, report) = build("kit", &sources, &records);
        let names: Vec<&str> = tk.operators.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, vec!["A"]);
        assert_eq!(report.skipped_records, 2);
    }
}
