//! A native toolkit from tool definitions (`toolscope init`), and with trace records the
//! `Next` prior and the operators learned from them.
//!
//! One group per source holding its tools (descriptions and JSON Schemas kept, so token
//! counts come from them); one action per tool, `call <tool>`, calling it with score 1.0
//! (a name no tool, group or other action has: `call <tool> (2)` and so on otherwise).
//! With records: each operator name in the records becomes an operator seeded with the
//! actions of the tools its runs call first (threshold [`THRESHOLD`], hops 1), and each
//! action gets at most [`MAX_NEXT`] `Next` edges, each scored by the
//! [`super::learn::prior`] weight of its target's tool (0 for a tool the runs never
//! called): its tool's successors in the runs (most steps first), then the tools its runs
//! had (`available`, else their calls) and then any tool the runs called, both the most
//! likely first, up to [`MAX_NEXT`] - 1; then [`reachable`] adds at most one edge to a
//! row so that every action is reachable from the operators'. `fit` then learns the
//! transitions. The file stays small (at most [`MAX_NEXT`] edges an action, where a
//! complete prior had one per tool). Without records: no `Next` edges, and one operator per group seeded with
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
                input_schema_text: t.schema_text.clone(),
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

/// The most `Next` edges `init` gives an action: [`MAX_NEXT`] - 1 from the runs and the
/// prior, and one more only where it is needed to keep every action reachable.
pub const MAX_NEXT: usize = 20;

/// The operators, then the prior's `Next` edges: each action's row, then [`reachable`].
fn learn_from(
    tk: &mut Toolkit,
    records: &[Record],
    action_of: &HashMap<NodeIndex, String>,
    group_of: &HashMap<NodeIndex, usize>,
    report: &mut InitReport,
) {
    operators(tk, records, action_of, report);
    let tool =
        |tk: &Toolkit, c: &str| super::eval::tool_named(tk, c).filter(|x| group_of.contains_key(x));
    // u(x): the steps (calls after a record's first) whose target is x; c(a, b): the
    // steps from a to b.
    let mut targets = Vec::new();
    let mut steps: HashMap<NodeIndex, HashMap<NodeIndex, u64>> = HashMap::new();
    for r in records {
        let calls: Vec<Option<NodeIndex>> = r.calls.iter().flatten().map(|c| tool(tk, c)).collect();
        for c in calls.iter().skip(1) {
            match c {
                Some(x) => targets.push(*x),
                None => report.unknown_calls += 1,
            }
        }
        for pair in calls.windows(2) {
            if let [Some(a), Some(b)] = *pair {
                *steps.entry(a).or_default().entry(b).or_default() += 1;
            }
        }
    }
    let w = prior(targets, |x| group_of.get(&x).copied().unwrap_or(usize::MAX));
    // The tools seen with each called tool: what its records had (`available`, else
    // their calls), the most likely first; only the first 2 (MAX_NEXT - 1) of a record
    // can be among a row's first MAX_NEXT - 1 after its own successors.
    let by_weight = |a: &NodeIndex, b: &NodeIndex| {
        let (wa, wb) = (
            w.get(a).copied().unwrap_or(0.0),
            w.get(b).copied().unwrap_or(0.0),
        );
        wb.total_cmp(&wa).then_with(|| tk.name(*a).cmp(tk.name(*b)))
    };
    let mut seen_with: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
    for r in records {
        let called: BTreeSet<NodeIndex> = r
            .calls
            .as_ref()
            .unwrap_or(&r.called)
            .iter()
            .filter_map(|c| tool(tk, c))
            .collect();
        if called.is_empty() {
            continue;
        }
        let mut had: Vec<NodeIndex> = match r.available.as_deref() {
            Some(names) if !names.is_empty() => {
                crate::evidence::steps::replay::available(tk, Some(names)).unwrap_or_default()
            }
            _ => called.iter().copied().collect(),
        };
        had.retain(|x| w.contains_key(x));
        had.sort_by(by_weight);
        had.dedup();
        had.truncate(2 * (MAX_NEXT - 1));
        for &x in &called {
            seen_with.entry(x).or_default().extend(&had);
        }
    }
    let mut likely: Vec<NodeIndex> = w.keys().copied().collect();
    likely.sort_by(by_weight);
    let mut tools: Vec<NodeIndex> = action_of.keys().copied().collect();
    tools.sort_by(|a, b| tk.name(*a).cmp(tk.name(*b)));
    let rows: Vec<Vec<usize>> = {
        let index: HashMap<NodeIndex, usize> =
            tools.iter().enumerate().map(|(i, &x)| (x, i)).collect();
        tools
            .iter()
            .map(|x| {
                let mut successors: Vec<(NodeIndex, u64)> = steps
                    .get(x)
                    .map(|m| m.iter().map(|(&b, &n)| (b, n)).collect())
                    .unwrap_or_default();
                successors
                    .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| tk.name(a.0).cmp(tk.name(b.0))));
                let mut seen = seen_with.remove(x).unwrap_or_default();
                seen.sort_by(by_weight);
                seen.dedup();
                let candidates = successors
                    .into_iter()
                    .map(|(b, _)| b)
                    .chain(seen)
                    .chain(likely.iter().copied());
                let mut row: Vec<usize> = Vec::new();
                for b in candidates {
                    if row.len() >= MAX_NEXT - 1 {
                        break;
                    }
                    if let Some(&i) = index.get(&b).filter(|i| !row.contains(i)) {
                        row.push(i);
                    }
                }
                row
            })
            .collect()
    };
    let position: HashMap<&str, usize> = tools
        .iter()
        .enumerate()
        .filter_map(|(i, x)| Some((action_of.get(x)?.as_str(), i)))
        .collect();
    let seeds: Vec<usize> = tk
        .operators
        .iter()
        .flat_map(|o| &o.actions)
        .filter_map(|a| position.get(a.as_str()).copied())
        .collect();
    let rows = reachable(rows, &seeds);
    let actions: Vec<Option<NodeIndex>> = tools
        .iter()
        .map(|x| action_of.get(x).and_then(|a| tk.action(a)))
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let Some(a) = actions[i] else { continue };
        for &j in row {
            let Some(b) = actions[j] else { continue };
            let score = w.get(&tools[j]).copied().unwrap_or(0.0);
            // Counted only when new: `add_edge` answers an existing edge too, and a row
            // that `reachable` extended may name an edge already made (the report said one
            // edge more than the file held).
            if tk.edge(a, b).is_none() && tk.add_new_edge(a, b, score, None).is_some() {
                report.next_edges += 1;
            }
        }
    }
}

/// `rows` (each action's successors, by position) with one edge added to some rows so
/// that every action is reachable from `seeds` (the first action when there are none):
/// the unreached actions in order, `u_0, u_1, ...`, each get an edge from the `i`-th of
/// the reached actions (in order) followed by the unreached ones. So each row gains at
/// most one edge, and `u_i` hangs from a reached action or an earlier `u`.
pub fn reachable(mut rows: Vec<Vec<usize>>, seeds: &[usize]) -> Vec<Vec<usize>> {
    let n = rows.len();
    let mut reached = vec![false; n];
    let mut stack: Vec<usize> = seeds.iter().copied().filter(|&s| s < n).collect();
    if stack.is_empty() && n > 0 {
        stack.push(0);
    }
    while let Some(a) = stack.pop() {
        if std::mem::replace(&mut reached[a], true) {
            continue;
        }
        stack.extend(rows[a].iter().copied().filter(|&b| b < n && !reached[b]));
    }
    let from: Vec<usize> = (0..n).filter(|&i| reached[i]).collect();
    let unreached: Vec<usize> = (0..n).filter(|&i| !reached[i]).collect();
    for (k, &u) in unreached.iter().enumerate() {
        let parent = from
            .get(k)
            .copied()
            .unwrap_or_else(|| unreached[k - from.len()]);
        rows[parent].push(u);
    }
    rows
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
                    schema_text: None,
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
        // Each action to the three tools the runs called (its successors first, then by
        // weight); `call call cd`'s tool was never called, so no row holds it and one
        // edge of score 0 from the first reached action (by its tool's name) reaches it.
        assert_eq!(report.next_edges, 4 * 3 + 1);
        let never = tk.action("call call cd").unwrap();
        let into_never: Vec<(&str, f64)> = tk
            .in_edges(never)
            .filter(|&(e, _)| tk.graph[e].kind == crate::model::EdgeKind::Next)
            .map(|(e, u)| (tk.name(u), tk.graph[e].score))
            .collect();
        assert_eq!(into_never, vec![("call cd (2)", 0.0)]);
        assert!(tk.edge(get, never).is_none());
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

    /// The `Next` edges of each action, as (from, to) names.
    fn next_rows(tk: &Toolkit) -> BTreeMap<String, Vec<String>> {
        let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for a in tk.nodes_of(NodeKind::Action) {
            let row = rows.entry(tk.name(a).to_string()).or_default();
            for (e, b) in tk.out_edges(a) {
                if tk.graph[e].kind == crate::model::EdgeKind::Next {
                    row.push(tk.name(b).to_string());
                }
            }
        }
        rows
    }

    /// The actions reachable from the operators' over `Next` edges.
    fn reached(tk: &Toolkit) -> BTreeSet<String> {
        let rows = next_rows(tk);
        let mut stack: Vec<String> = tk
            .operators
            .iter()
            .flat_map(|o| o.actions.iter().cloned())
            .collect();
        let mut seen = BTreeSet::new();
        while let Some(a) = stack.pop() {
            if seen.insert(a.clone()) {
                stack.extend(rows.get(&a).into_iter().flatten().cloned());
            }
        }
        seen
    }

    #[test]
    fn reachable_hangs_each_unreached_action_from_one_row() {
        // 0 -> 1; 2, 3 and 4 unreached: 0 -> 2, 1 -> 3, 2 -> 4.
        let rows = reachable(vec![vec![1], vec![], vec![], vec![3], vec![]], &[0]);
        assert_eq!(rows, vec![vec![1, 2], vec![3], vec![4], vec![3], vec![]]);
        // No seeds: from the first.
        assert_eq!(reachable(vec![vec![], vec![]], &[]), vec![vec![1], vec![]]);
        assert!(reachable(Vec::new(), &[]).is_empty());
    }

    /// Issue 35 item 4: the prior grows with the tools, not with their square. One record
    /// calling every tool once (the attack's shape, and the densest: every tool has a
    /// successor and every tool is in every row's candidates).
    #[test]
    fn the_prior_grows_linearly_with_the_tools() {
        let size = |n: usize| {
            let names: Vec<String> = (0..n).map(|i| format!("t{i:05}")).collect();
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let sources = [source("a", &refs[..n / 2]), source("b", &refs[n / 2..])];
            let (tk, report) = build("kit", &sources, &[Record::ordered("op", &refs)]);
            let text = toolscope_edit::export::native::to_native(&tk);
            (report.next_edges, text.len())
        };
        let (e1, b1) = size(100);
        let (e4, b4) = size(400);
        assert!(
            (100..=100 * MAX_NEXT).contains(&e1),
            "{e1} edges for 100 tools"
        );
        // Four times the tools: about four times the edges and the bytes (a complete
        // prior gives sixteen times the edges).
        assert!(e4 * 10 <= e1 * 45, "{e1} edges for 100 tools, {e4} for 400");
        assert!(b4 * 10 <= b1 * 45, "{b1} bytes for 100 tools, {b4} for 400");
    }

    /// Tools, and records as (operator, calls, available), tools by number.
    type ArbRecords = (usize, Vec<(String, Vec<usize>, Option<Vec<usize>>)>);

    fn arb_records() -> impl proptest::strategy::Strategy<Value = ArbRecords> {
        use proptest::prelude::*;
        (1usize..60).prop_flat_map(|n| {
            let record = (
                prop::sample::select(vec!["A", "B", ""]),
                prop::collection::vec(0..n + 3, 0..12),
                prop::option::of(prop::collection::vec(0..n + 3, 0..30)),
            )
                .prop_map(|(op, calls, available)| (op.to_string(), calls, available));
            (Just(n), prop::collection::vec(record, 0..25))
        })
    }

    proptest::proptest! {
        /// Issue 31 item 5: at most MAX_NEXT `Next` edges per action, every action
        /// reachable from the operators', every step of the runs an edge (when a tool has
        /// fewer than MAX_NEXT successors), every score in [0, 1].
        #[test]
        fn the_prior_is_small_reaches_every_action_and_keeps_the_steps(
            (n, recs) in arb_records()
        ) {
            // Tools t0..t(n-1) in two groups; indexes past n name no defined tool.
            let names: Vec<String> = (0..n + 3).map(|i| format!("t{i}")).collect();
            let defined: Vec<&str> = names[..n].iter().map(String::as_str).collect();
            let sources = [source("g1", &defined[..n / 2]), source("g2", &defined[n / 2..])];
            let records: Vec<Record> = recs
                .iter()
                .map(|(op, calls, available)| {
                    let calls: Vec<&str> = calls.iter().map(|&i| names[i].as_str()).collect();
                    let mut r = Record::ordered(op, &calls);
                    r.available = available
                        .as_ref()
                        .map(|a| a.iter().map(|&i| names[i].clone()).collect());
                    r
                })
                .collect();
            let (tk, report) = build("kit", &sources, &records);
            let rows = next_rows(&tk);
            let total: usize = rows.values().map(Vec::len).sum();
            proptest::prop_assert_eq!(total, report.next_edges);
            for (a, row) in &rows {
                proptest::prop_assert!(row.len() <= MAX_NEXT, "{} has {} Next edges", a, row.len());
            }
            for e in tk.graph.edge_indices() {
                let s = tk.graph[e].score;
                proptest::prop_assert!((0.0..=1.0).contains(&s));
            }
            if !records.is_empty() && !tk.operators.is_empty() {
                let reached = reached(&tk);
                for a in rows.keys() {
                    proptest::prop_assert!(reached.contains(a), "{} is not reachable", a);
                }
            }
            // The steps the runs show, between defined tools.
            let mut successors: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
            for (_, calls, _) in &recs {
                for w in calls.windows(2) {
                    if w[0] < n && w[1] < n {
                        successors.entry(names[w[0]].as_str()).or_default().insert(names[w[1]].as_str());
                    }
                }
            }
            for (a, bs) in successors {
                if bs.len() < MAX_NEXT {
                    let row = &rows[&format!("call {a}")];
                    for b in bs {
                        let want = format!("call {b}");
                        proptest::prop_assert!(row.contains(&want), "step {} -> {} has no edge", a, b);
                    }
                }
            }
        }
    }
}
