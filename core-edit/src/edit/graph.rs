//! The graph side of edits: apply to a [`Toolkit`] and compute inverses.

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use crate::model::{EdgeKind, Node, NodeKind, Operator, ToolMeta, Toolkit};

use super::{Edit, EditError, OperatorParam, Removed, RemovedEdge, check_unit};

fn node(tk: &Toolkit, kind: NodeKind, name: &str) -> Result<NodeIndex, EditError> {
    tk.find(kind, name)
        .ok_or_else(|| EditError::NotFound(format!("{} `{name}`", kind.as_str())))
}

fn action(tk: &Toolkit, name: &str) -> Result<NodeIndex, EditError> {
    node(tk, NodeKind::Action, name)
}

/// The edges of `from -> to` (see [`edges_to`]); at least one.
fn edge(
    tk: &Toolkit,
    from: &str,
    to: &str,
    to_kind: NodeKind,
) -> Result<Vec<(EdgeIndex, NodeIndex)>, EditError> {
    let a = action(tk, from)?;
    let b = node(tk, to_kind, to)?;
    let edges = edges_to(tk, a, b);
    if edges.is_empty() {
        return Err(EditError::NotFound(format!("edge {from} -> {to}")));
    }
    Ok(edges)
}

/// The edges that "action `a` calls `b`" stands for, as (edge, target): the edge `a -> b`,
/// or, for a group whose members are known (it has `Has` edges), the edges from `a` to its
/// members, since calling such a group is a Call edge to every member (SPEC 1). So an edit
/// of `a -> group` (link, unlink, score) edits the edges the graph has for it.
pub fn edges_to(tk: &Toolkit, a: NodeIndex, b: NodeIndex) -> Vec<(EdgeIndex, NodeIndex)> {
    if let Some(e) = tk.edge(a, b) {
        return vec![(e, b)];
    }
    members(tk, b)
        .into_iter()
        .filter_map(|m| Some((tk.edge(a, m)?, m)))
        .collect()
}

/// The kind of the node `to` that the edge `from -> to` reaches: an action, a tool, or an
/// MCP group (also one whose members are known: calling it is calling them).
pub fn edge_kind(tk: &Toolkit, from: &str, to: &str) -> Result<NodeKind, EditError> {
    let a = action(tk, from)?;
    tk.named(to)
        .find(|b| !edges_to(tk, a, *b).is_empty())
        .map(|b| tk.kind(b))
        .ok_or_else(|| EditError::NotFound(format!("no edge {from} -> {to}")))
}

/// A group's known members (the targets of its `Has` edges); none for other nodes.
pub fn members(tk: &Toolkit, g: NodeIndex) -> Vec<NodeIndex> {
    if tk.kind(g) != NodeKind::Group {
        return Vec::new();
    }
    // In the order they were added (the file's or the cache's), not petgraph's.
    let mut found: Vec<(EdgeIndex, NodeIndex)> = tk
        .out_edges(g)
        .filter(|(e, _)| tk.graph[*e].kind == EdgeKind::Has)
        .collect();
    found.sort_by_key(|(e, _)| e.index());
    found.into_iter().map(|(_, m)| m).collect()
}

fn operator_exists(tk: &Toolkit, name: &str) -> Result<(), EditError> {
    tk.operator(name)
        .map(|_| ())
        .ok_or_else(|| EditError::NotFound(format!("operator `{name}`")))
}

/// A new tool as the loaders build a declared one.
pub fn new_tool(name: &str, desc: &str, module_path: &str) -> Node {
    let mut n = Node::new(NodeKind::Tool, name).with_desc(desc);
    n.meta = Some(Box::new(ToolMeta {
        ty: "LOCAL_TOOL".into(),
        module_path: module_path.to_string(),
        ..ToolMeta::default()
    }));
    n
}

/// Whether [`apply`] checks the values an edit brings (scores and thresholds in [0, 1],
/// hops at most [`crate::recommend::MAX_HOPS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// A new edit: its values must be valid.
    Checked,
    /// An undo: it puts back what the file held, which may be a value the loader reported
    /// (a score of 5.9 set to 0.5 must undo to 5.9, not be stuck).
    AsTheFileHeld,
}

pub fn apply(tk: &mut Toolkit, edit: &Edit, values: Values) -> Result<(), EditError> {
    let unit = |what: &str, v: f64| match values {
        Values::Checked => check_unit(what, v),
        Values::AsTheFileHeld => Ok(()),
    };
    match edit {
        Edit::SetScore {
            from,
            to,
            to_kind,
            score,
        } => {
            unit("a score", *score)?;
            let edges = edge(tk, from, to, *to_kind)?;
            if edges
                .iter()
                .any(|(e, _)| tk.graph[*e].kind == EdgeKind::Has)
            {
                return Err(EditError::Invalid("`Has` edges have a fixed score".into()));
            }
            for (e, _) in edges {
                tk.graph[e].score = *score;
            }
        }
        Edit::SetThreshold { operator, value } => {
            unit("a threshold", *value)?;
            operator_exists(tk, operator)?;
            if let Some(op) = tk.operator_mut(operator) {
                op.threshold = *value;
            }
        }
        Edit::SetHops { operator, value } => {
            if values == Values::Checked && *value > crate::recommend::MAX_HOPS {
                return Err(EditError::Invalid(format!(
                    "hops must be at most {}, not {value}",
                    crate::recommend::MAX_HOPS
                )));
            }
            operator_exists(tk, operator)?;
            if let Some(op) = tk.operator_mut(operator) {
                op.hops = *value;
            }
        }
        Edit::SetDesc { kind, name, text } => {
            let ix = node(tk, *kind, name)?;
            tk.node_mut(ix).desc.clone_from(text);
        }
        Edit::SetEnabled {
            kind,
            name,
            enabled,
        } => {
            let ix = node(tk, *kind, name)?;
            let Some(meta) = tk.node_mut(ix).meta.as_mut() else {
                return Err(EditError::Invalid(format!(
                    "only tools and groups can be enabled or disabled, not `{name}`"
                )));
            };
            meta.enabled = *enabled;
        }
        Edit::AddEdge {
            from,
            to,
            to_kind,
            score,
        } => {
            unit("a score", *score)?;
            let a = action(tk, from)?;
            let b = node(tk, *to_kind, to)?;
            if !edges_to(tk, a, b).is_empty() {
                return Err(EditError::Invalid(format!(
                    "edge {from} -> {to} exists already"
                )));
            }
            let members = members(tk, b);
            if members.is_empty() {
                tk.add_edge(a, b, *score, None).ok_or_else(|| {
                    EditError::Invalid(format!("no edge kind joins {from} and {to}"))
                })?;
            }
            for m in members {
                tk.add_edge(a, m, *score, None);
            }
        }
        Edit::RemoveEdge { from, to, to_kind } => {
            for (e, _) in edge(tk, from, to, *to_kind)? {
                tk.graph.remove_edge(e);
            }
        }
        Edit::AddAction { name, desc } => {
            check_new_name(tk, NodeKind::Action, name)?;
            tk.add_node(Node::new(NodeKind::Action, name.clone()).with_desc(desc.clone()));
        }
        Edit::AddTool {
            name,
            desc,
            callers,
            module_path,
        } => {
            check_new_name(tk, NodeKind::Tool, name)?;
            for (c, s) in callers {
                action(tk, c)?;
                unit("a score", *s)?;
            }
            let t = tk.add_node(new_tool(name, desc, module_path));
            for (c, s) in callers {
                let a = action(tk, c)?;
                tk.add_edge(a, t, *s, None);
            }
        }
        Edit::RemoveNode { kind, name } => {
            let ix = node(tk, *kind, name)?;
            tk.remove(ix);
        }
        Edit::AddNode(n) => {
            check_new_name(tk, n.kind, &n.name)?;
            tk.add_node(n.as_ref().clone());
        }
        Edit::AddMember { group, tool } => {
            let (g, t) = (
                node(tk, NodeKind::Group, group)?,
                node(tk, NodeKind::Tool, tool)?,
            );
            if tk.edge(g, t).is_some() {
                return Err(EditError::Invalid(format!(
                    "{tool} is a member of {group} already"
                )));
            }
            tk.add_edge(g, t, 1.0, None);
        }
        Edit::RemoveMember { group, tool } => {
            let (g, t) = (
                node(tk, NodeKind::Group, group)?,
                node(tk, NodeKind::Tool, tool)?,
            );
            let e = tk
                .edge(g, t)
                .ok_or_else(|| EditError::NotFound(format!("{tool} in group {group}")))?;
            tk.graph.remove_edge(e);
        }
        Edit::AddSeed {
            operator,
            action,
            at,
        } => {
            operator_exists(tk, operator)?;
            if let Some(op) = tk.operator_mut(operator) {
                let at = (*at).min(op.actions.len());
                op.actions.insert(at, action.clone());
            }
        }
        Edit::RemoveSeed { operator, action } => {
            let at = seed_position(tk, operator, action)?;
            if let Some(op) = tk.operator_mut(operator) {
                op.actions.remove(at);
            }
        }
        Edit::ResetParam { operator, param } => {
            operator_exists(tk, operator)?;
            if let Some(op) = tk.operator_mut(operator) {
                match param {
                    OperatorParam::Threshold => op.threshold = Operator::DEFAULT_THRESHOLD,
                    OperatorParam::Hops => op.hops = Operator::DEFAULT_HOPS,
                }
            }
        }
    }
    Ok(())
}

/// Where an operator names an action among its seeds.
fn seed_position(tk: &Toolkit, operator: &str, action: &str) -> Result<usize, EditError> {
    let op = tk
        .operator(operator)
        .ok_or_else(|| EditError::NotFound(format!("operator `{operator}`")))?;
    op.actions
        .iter()
        .position(|a| a == action)
        .ok_or_else(|| EditError::NotFound(format!("seed `{action}` of operator `{operator}`")))
}

fn check_new_name(tk: &Toolkit, kind: NodeKind, name: &str) -> Result<(), EditError> {
    if name.trim().is_empty() {
        return Err(EditError::Invalid("a name cannot be empty".into()));
    }
    if tk.find(kind, name).is_some() {
        return Err(EditError::Invalid(format!(
            "{} `{name}` exists already",
            kind.as_str()
        )));
    }
    Ok(())
}

/// What removing `kind name` takes out (the named node first), for its inverse and for
/// previews.
pub fn removal(tk: &Toolkit, kind: NodeKind, name: &str) -> Result<Removed, EditError> {
    let ix = node(tk, kind, name)?;
    let gone = tk.cascade(ix);
    let nodes = gone.iter().map(|n| tk.node(*n).clone()).collect();
    let mut edges = Vec::new();
    for e in tk.graph.edge_indices() {
        let Some((a, b)) = tk.graph.edge_endpoints(e) else {
            continue;
        };
        if gone.contains(&a) || gone.contains(&b) {
            let edge = &tk.graph[e];
            edges.push(RemovedEdge {
                from: (tk.kind(a), tk.name(a).to_string()),
                to: (tk.kind(b), tk.name(b).to_string()),
                kind: edge.kind,
                score: edge.score,
                origin: edge.origin,
            });
        }
    }
    Ok(Removed { nodes, edges })
}

/// What puts back a removal: the nodes (tools before the groups holding them, actions
/// last), then group members, then the `Next` and `Call` edges with their scores.
fn unremove(removed: Removed) -> Vec<Edit> {
    let mut out = Vec::new();
    for kind in [NodeKind::Tool, NodeKind::Group, NodeKind::Action] {
        for n in removed.nodes.iter().filter(|n| n.kind == kind) {
            out.push(Edit::AddNode(Box::new(n.clone())));
        }
    }
    let (has, calls): (Vec<RemovedEdge>, Vec<RemovedEdge>) = removed
        .edges
        .into_iter()
        .partition(|e| e.kind == EdgeKind::Has);
    out.extend(has.into_iter().map(|e| Edit::AddMember {
        group: e.from.1,
        tool: e.to.1,
    }));
    out.extend(calls.into_iter().map(|e| Edit::AddEdge {
        from: e.from.1,
        to: e.to.1,
        to_kind: e.to.0,
        score: e.score,
    }));
    out
}

pub fn inverse(tk: &Toolkit, edit: &Edit) -> Result<Vec<Edit>, EditError> {
    Ok(vec![match edit {
        Edit::SetScore {
            from, to, to_kind, ..
        } => {
            // A group's members keep their own scores: each is put back.
            let edges = edge(tk, from, to, *to_kind)?;
            return Ok(edges
                .into_iter()
                .map(|(e, t)| Edit::SetScore {
                    from: from.clone(),
                    to: tk.name(t).to_string(),
                    to_kind: tk.kind(t),
                    score: tk.graph[e].score,
                })
                .collect());
        }
        Edit::SetThreshold { operator, .. } => {
            let op = tk
                .operator(operator)
                .ok_or_else(|| EditError::NotFound(operator.clone()))?;
            Edit::SetThreshold {
                operator: operator.clone(),
                value: op.threshold,
            }
        }
        Edit::SetHops { operator, .. } => {
            let op = tk
                .operator(operator)
                .ok_or_else(|| EditError::NotFound(operator.clone()))?;
            Edit::SetHops {
                operator: operator.clone(),
                value: op.hops,
            }
        }
        Edit::SetDesc { kind, name, .. } => {
            let ix = node(tk, *kind, name)?;
            Edit::SetDesc {
                kind: *kind,
                name: name.clone(),
                text: tk.node(ix).desc.clone(),
            }
        }
        Edit::SetEnabled { kind, name, .. } => {
            let ix = node(tk, *kind, name)?;
            Edit::SetEnabled {
                kind: *kind,
                name: name.clone(),
                enabled: tk.node(ix).enabled(),
            }
        }
        Edit::AddEdge {
            from, to, to_kind, ..
        } => Edit::RemoveEdge {
            from: from.clone(),
            to: to.clone(),
            to_kind: *to_kind,
        },
        Edit::RemoveEdge { from, to, to_kind } => {
            // A group's call comes back at the first member's score, then each member whose
            // score differs gets its own.
            let edges = edge(tk, from, to, *to_kind)?;
            let first = tk.graph[edges[0].0].score;
            let mut undo = vec![Edit::AddEdge {
                from: from.clone(),
                to: to.clone(),
                to_kind: *to_kind,
                score: first,
            }];
            undo.extend(
                edges
                    .into_iter()
                    .skip(1)
                    .filter(|(e, _)| tk.graph[*e].score != first)
                    .map(|(e, t)| Edit::SetScore {
                        from: from.clone(),
                        to: tk.name(t).to_string(),
                        to_kind: tk.kind(t),
                        score: tk.graph[e].score,
                    }),
            );
            return Ok(undo);
        }
        Edit::AddAction { name, .. } => Edit::RemoveNode {
            kind: NodeKind::Action,
            name: name.clone(),
        },
        Edit::AddTool { name, .. } => Edit::RemoveNode {
            kind: NodeKind::Tool,
            name: name.clone(),
        },
        Edit::RemoveNode { kind, name } => return Ok(unremove(removal(tk, *kind, name)?)),
        Edit::AddNode(n) => {
            check_new_name(tk, n.kind, &n.name)?;
            Edit::RemoveNode {
                kind: n.kind,
                name: n.name.clone(),
            }
        }
        Edit::AddMember { group, tool } => Edit::RemoveMember {
            group: group.clone(),
            tool: tool.clone(),
        },
        Edit::RemoveMember { group, tool } => Edit::AddMember {
            group: group.clone(),
            tool: tool.clone(),
        },
        Edit::AddSeed {
            operator, action, ..
        } => Edit::RemoveSeed {
            operator: operator.clone(),
            action: action.clone(),
        },
        Edit::RemoveSeed { operator, action } => Edit::AddSeed {
            operator: operator.clone(),
            action: action.clone(),
            at: seed_position(tk, operator, action)?,
        },
        Edit::ResetParam { operator, param } => {
            let op = tk
                .operator(operator)
                .ok_or_else(|| EditError::NotFound(operator.clone()))?;
            match param {
                OperatorParam::Threshold => Edit::SetThreshold {
                    operator: operator.clone(),
                    value: op.threshold,
                },
                OperatorParam::Hops => Edit::SetHops {
                    operator: operator.clone(),
                    value: op.hops,
                },
            }
        }
    }])
}

/// Whether two toolkits hold the same nodes (with descriptions and properties), edges (with
/// kinds and scores) and operators: what `Toolkit::difference` compares, in linear time
/// through the name index, without naming the difference.
pub fn same_graph(a: &Toolkit, b: &Toolkit) -> bool {
    if a.graph.node_count() != b.graph.node_count() || a.graph.edge_count() != b.graph.edge_count()
    {
        return false;
    }
    let counterpart = |ix: NodeIndex| {
        let n = a.node(ix);
        b.find(n.kind, &n.name)
    };
    let nodes_match = a.graph.node_indices().all(|ix| {
        counterpart(ix).is_some_and(|o| {
            let (n, m) = (a.node(ix), b.node(o));
            n.desc == m.desc && n.meta == m.meta
        })
    });
    let edges_match = nodes_match
        && a.graph.edge_indices().all(|e| {
            let Some((u, v)) = a.graph.edge_endpoints(e) else {
                return false;
            };
            let other = counterpart(u)
                .zip(counterpart(v))
                .and_then(|(x, y)| b.edge(x, y));
            other.is_some_and(|f| {
                let (x, y) = (&a.graph[e], &b.graph[f]);
                x.kind == y.kind && x.score.to_bits() == y.score.to_bits()
            })
        });
    fn ops(t: &Toolkit) -> Vec<(&str, &Vec<String>, u64, u32)> {
        let mut v: Vec<_> = t
            .operators
            .iter()
            .map(|o| (o.name.as_str(), &o.actions, o.threshold.to_bits(), o.hops))
            .collect();
        v.sort();
        v
    }
    edges_match && ops(a) == ops(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Limits;
    use crate::testing::load_text;
    use std::path::Path;

    fn example() -> Toolkit {
        let text = include_str!("../../../tests/golden/graph-db.yaml").to_string();
        load_text(Path::new("g.yaml"), text, None, &Limits::default())
            .unwrap()
            .toolkit
    }

    /// A group whose members are known: an edge to it is an edge to each member, and the
    /// inverses put back each member's own score.
    #[test]
    fn edits_of_a_call_to_a_group_with_members_edit_the_members_edges() {
        let mut tk = Toolkit::new();
        tk.add_node(Node::new(NodeKind::Action, "a"));
        let g = tk.add_node(Node::new(NodeKind::Group, "g"));
        for m in ["m1", "m2"] {
            let t = tk.add_node(Node::new(NodeKind::Tool, m));
            tk.add_edge(g, t, 1.0, None);
        }
        let call = |score| Edit::AddEdge {
            from: "a".into(),
            to: "g".into(),
            to_kind: NodeKind::Group,
            score,
        };
        apply(&mut tk, &call(0.5), Values::Checked).unwrap();
        let a = tk.action("a").unwrap();
        let score_of = |tk: &Toolkit, m: &str| {
            let t = tk.find(NodeKind::Tool, m).unwrap();
            tk.edge(a, t).map(|e| tk.graph[e].score)
        };
        assert_eq!(
            (score_of(&tk, "m1"), score_of(&tk, "m2")),
            (Some(0.5), Some(0.5))
        );
        assert!(tk.edge(a, g).is_none());
        assert_eq!(edge_kind(&tk, "a", "g").unwrap(), NodeKind::Group);
        assert!(
            apply(&mut tk, &call(0.5), Values::Checked).is_err(),
            "exists already"
        );
        let m2 = Edit::SetScore {
            from: "a".into(),
            to: "m2".into(),
            to_kind: NodeKind::Tool,
            score: 0.2,
        };
        apply(&mut tk, &m2, Values::Checked).unwrap();
        let unlink = Edit::RemoveEdge {
            from: "a".into(),
            to: "g".into(),
            to_kind: NodeKind::Group,
        };
        let undo = inverse(&tk, &unlink).unwrap();
        apply(&mut tk, &unlink, Values::Checked).unwrap();
        assert_eq!((score_of(&tk, "m1"), score_of(&tk, "m2")), (None, None));
        for e in &undo {
            apply(&mut tk, e, Values::Checked).unwrap();
        }
        assert_eq!(
            (score_of(&tk, "m1"), score_of(&tk, "m2")),
            (Some(0.5), Some(0.2))
        );
        let group_score = Edit::SetScore {
            from: "a".into(),
            to: "g".into(),
            to_kind: NodeKind::Group,
            score: 0.9,
        };
        let undo = inverse(&tk, &group_score).unwrap();
        apply(&mut tk, &group_score, Values::Checked).unwrap();
        assert_eq!(
            (score_of(&tk, "m1"), score_of(&tk, "m2")),
            (Some(0.9), Some(0.9))
        );
        for e in &undo {
            apply(&mut tk, e, Values::Checked).unwrap();
        }
        assert_eq!(
            (score_of(&tk, "m1"), score_of(&tk, "m2")),
            (Some(0.5), Some(0.2))
        );
    }

    #[test]
    fn same_graph_agrees_with_difference() {
        let base = example();
        assert!(same_graph(&base, &example()));
        type Change = Box<dyn Fn(&mut Toolkit)>;
        let changes: Vec<Change> = vec![
            Box::new(|t| {
                let (a, b) = (
                    t.action("query_design").unwrap(),
                    t.action("query_execution").unwrap(),
                );
                t.set_score(a, b, 0.91);
            }),
            Box::new(|t| {
                let a = t.action("query_design").unwrap();
                t.node_mut(a).desc.push('!');
            }),
            Box::new(|t| {
                let g = t.find(NodeKind::Tool, "GraphDropper").unwrap();
                if let Some(m) = t.node_mut(g).meta.as_mut() {
                    m.enabled = true;
                }
            }),
            Box::new(|t| t.operators[0].hops += 1),
            Box::new(|t| {
                let e = t.graph.edge_indices().next().unwrap();
                t.graph.remove_edge(e);
            }),
            Box::new(|t| {
                let (a, b) = (
                    t.action("data_import").unwrap(),
                    t.action("query_design").unwrap(),
                );
                t.add_edge(a, b, 1.0, None);
            }),
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut t = example();
            change(&mut t);
            assert!(!same_graph(&base, &t), "change {i} not seen");
            assert!(base.difference(&t).is_some(), "change {i}");
        }
    }
}
