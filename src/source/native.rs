//! The native toolkit format (SPEC 3.1): `name`, `tools`, `groups`, `actions` with `tools`
//! (Call edges) and `next` (Next edges), and `operators`.

use std::collections::{HashMap, HashSet};

use crate::diag::{Code, Severity};
use crate::model::{Node, NodeKind, Operator};

use super::ctx::{Ctx, Ref};
use super::yaml::NodeId;

pub fn load(ctx: &mut Ctx<'_>) {
    if let Some(root) = ctx.doc.root {
        if ctx.doc.map(root).is_none() {
            ctx.diag(
                root,
                Severity::Error,
                Code::Shape,
                "a toolkit file must be a mapping".into(),
            );
            return;
        }
        ctx.duplicate_keys(root);
    }
    ctx.toolkit.name = ctx
        .top("name")
        .and_then(|n| ctx.doc.str(n).map(str::to_string));
    let tools = ctx.top_list("tools");
    let groups = ctx.top_list("groups");
    let actions = ctx.top_list("actions");
    let operators = ctx.top_list("operators");

    for item in tools {
        declare_tool(ctx, item);
    }
    let members = declare_groups(ctx, groups);
    let declared: Vec<(NodeId, String)> = actions
        .iter()
        .filter_map(|&item| declare_action(ctx, item).map(|name| (item, name)))
        .collect();
    for (item, name) in &declared {
        action_edges(ctx, *item, name, &members);
    }
    for item in operators {
        operator(ctx, item);
    }
}

impl Ctx<'_> {
    fn top_list(&mut self, key: &str) -> Vec<NodeId> {
        match self.doc.root {
            Some(root) if self.doc.map(root).is_some() => self.list(root, key),
            _ => Vec::new(),
        }
    }

    /// A declaration's name, or a diagnostic.
    fn decl_name(&mut self, item: NodeId, what: &str) -> Option<String> {
        if self.doc.map(item).is_none() {
            self.diag(
                item,
                Severity::Error,
                Code::Shape,
                format!("{what} must be a mapping with `name`"),
            );
            return None;
        }
        self.duplicate_keys(self.doc.resolve(item));
        self.check_text_fields(item);
        match self.text(item, "name") {
            Some(n) if !n.is_empty() => Some(n),
            _ => {
                self.diag(
                    item,
                    Severity::Error,
                    Code::Shape,
                    format!("{what} without a `name`"),
                );
                None
            }
        }
    }

    /// Adds a declared node; a second declaration of the same kind and name is an error.
    fn declare(&mut self, item: NodeId, mut node: Node) -> bool {
        let existing = self.toolkit.find(node.kind, &node.name);
        if let Some(existing) = existing {
            let prev = self.toolkit.node(existing).origin;
            if !self.toolkit.node(existing).implicit {
                let at = prev.map(|o| format!(" (first at line {})", o.line));
                self.diag(
                    item,
                    Severity::Error,
                    Code::DuplicateName,
                    format!(
                        "{} `{}` is declared twice{}",
                        node.kind.as_str(),
                        node.name,
                        at.unwrap_or_default()
                    ),
                );
                return false;
            }
        }
        node.origin = Some(self.origin(self.doc.resolve(item)));
        if !self.charge_node(item, &node) {
            return false;
        }
        // A node created implicitly by an earlier reference takes the declaration's place
        // (no copy of the node: a 100k-action file declares 125k of them).
        match existing {
            Some(ix) => *self.toolkit.node_mut(ix) = node,
            None => {
                self.toolkit.add_node(node);
            }
        }
        true
    }

    fn implicit_tool(&mut self, r: &Ref) -> petgraph::stable_graph::NodeIndex {
        if let Some(t) = self.toolkit.find(NodeKind::Tool, &r.name) {
            return t;
        }
        self.diag(
            r.item,
            Severity::Warning,
            Code::UnknownTool,
            format!(
                "tool `{}` is not declared under `tools`; created with an empty description",
                r.name
            ),
        );
        let mut node = Node::new(NodeKind::Tool, r.name.clone());
        node.implicit = true;
        node.origin = Some(self.origin(r.item));
        // Counted; past the budget the load fails, so the node itself may still be added.
        self.charge_node(r.item, &node);
        self.toolkit.add_node(node)
    }
}

fn declare_tool(ctx: &mut Ctx<'_>, item: NodeId) {
    let Some(name) = ctx.decl_name(item, "a tool") else {
        return;
    };
    let mut node = Node::new(NodeKind::Tool, name);
    node.desc = ctx.text(item, "desc").unwrap_or_default();
    node.meta = Some(Box::new(ctx.tool_meta(item, "LOCAL_TOOL")));
    ctx.declare(item, node);
}

/// Declares groups with `Has` edges; returns each group's member names.
fn declare_groups(ctx: &mut Ctx<'_>, groups: Vec<NodeId>) -> HashMap<String, Vec<String>> {
    let mut members = HashMap::new();
    for item in groups {
        let Some(name) = ctx.decl_name(item, "a group") else {
            continue;
        };
        let mut node = Node::new(NodeKind::Group, name.clone());
        node.desc = ctx.text(item, "desc").unwrap_or_default();
        node.meta = Some(Box::new(ctx.tool_meta(item, "MCP")));
        if !ctx.declare(item, node) {
            continue;
        }
        let Some(g) = ctx.toolkit.find(NodeKind::Group, &name) else {
            continue;
        };
        let mut names = Vec::new();
        for m in ctx.list(item, "tools") {
            let Some(r) = ctx.reference(m, false) else {
                continue;
            };
            let t = ctx.implicit_tool(&r);
            let origin = ctx.origin(r.item);
            ctx.toolkit.add_edge(g, t, 1.0, Some(origin));
            names.push(r.name);
        }
        if names.is_empty() {
            let origin = ctx.origin(ctx.doc.resolve(item));
            for tool in ctx.cached_members(&name) {
                let t = ctx.cached_member(&tool, origin);
                ctx.toolkit.add_edge(g, t, 1.0, Some(origin));
                names.push(tool.name);
            }
        }
        members.insert(name, names);
    }
    members
}

fn declare_action(ctx: &mut Ctx<'_>, item: NodeId) -> Option<String> {
    let name = ctx.decl_name(item, "an action")?;
    let mut node = Node::new(NodeKind::Action, name.clone());
    node.desc = ctx.text(item, "desc").unwrap_or_default();
    ctx.declare(item, node).then_some(name)
}

fn action_edges(
    ctx: &mut Ctx<'_>,
    item: NodeId,
    name: &str,
    members: &HashMap<String, Vec<String>>,
) {
    let Some(a) = ctx.toolkit.action(name) else {
        return;
    };
    let refs: Vec<Ref> = ctx
        .list(item, "tools")
        .into_iter()
        .filter_map(|t| ctx.reference(t, true))
        .collect();
    // The members of each item that references a group (a tool of the same name wins).
    let groups: Vec<Option<&Vec<String>>> = refs
        .iter()
        .map(|r| {
            members
                .get(&r.name)
                .filter(|_| ctx.toolkit.find(NodeKind::Tool, &r.name).is_none())
        })
        .collect();
    // A member named by an item of its own (`{name: MEMBER, score: S}`) takes that item's
    // score wherever it stands; the group reference gives the other members theirs.
    let own: HashSet<&str> = refs
        .iter()
        .zip(&groups)
        .filter(|(_, g)| g.is_none())
        .map(|(r, _)| r.name.as_str())
        .collect();
    for (r, group) in refs.iter().zip(&groups) {
        let score = r.score.unwrap_or(1.0);
        let origin = Some(ctx.origin(r.item));
        let targets = match group {
            Some(m) if !m.is_empty() => m
                .iter()
                .filter(|n| !own.contains(n.as_str()))
                .filter_map(|n| ctx.toolkit.find(NodeKind::Tool, n))
                .collect(),
            Some(_) => ctx
                .toolkit
                .find(NodeKind::Group, &r.name)
                .into_iter()
                .collect(),
            None => vec![ctx.implicit_tool(r)],
        };
        for target in targets {
            add_scored_edge(ctx, a, target, score, origin, r.item);
        }
    }
    for n in ctx.list(item, "next") {
        let Some(r) = ctx.reference(n, true) else {
            continue;
        };
        let Some(b) = ctx.toolkit.action(&r.name) else {
            // Another opened file may define it: `load_paths` settles this after merging.
            ctx.unresolved.push(super::Unresolved {
                from: name.to_string(),
                to: r.name.clone(),
                score: r.score.unwrap_or(1.0),
                origin: ctx.origin(r.item),
                diag: ctx.diags.len(),
            });
            ctx.diag(
                r.item,
                Severity::Error,
                Code::UnknownAction,
                format!("`next` of `{name}` names no action: `{}`", r.name),
            );
            continue;
        };
        let origin = Some(ctx.origin(r.item));
        add_scored_edge(ctx, a, b, r.score.unwrap_or(1.0), origin, r.item);
    }
}

fn add_scored_edge(
    ctx: &mut Ctx<'_>,
    a: petgraph::stable_graph::NodeIndex,
    b: petgraph::stable_graph::NodeIndex,
    score: f64,
    origin: Option<crate::model::Origin>,
    item: NodeId,
) {
    if ctx.toolkit.edge(a, b).is_some() {
        let label = format!("{} -> {}", ctx.toolkit.name(a), ctx.toolkit.name(b));
        ctx.diag(
            item,
            Severity::Warning,
            Code::DuplicateEdge,
            format!("edge {label} is listed twice; the first one counts"),
        );
        return;
    }
    if ctx.charge_edge(item) {
        ctx.toolkit.add_edge(a, b, score, origin);
    }
}

fn operator(ctx: &mut Ctx<'_>, item: NodeId) {
    let Some(name) = ctx.decl_name(item, "an operator") else {
        return;
    };
    let mut actions = Vec::new();
    for a in ctx.list(item, "actions") {
        if let Some(r) = ctx.reference(a, false) {
            if ctx.toolkit.action(&r.name).is_none() {
                ctx.diag(
                    r.item,
                    Severity::Error,
                    Code::OperatorUnknownAction,
                    format!("operator `{name}` names no action: `{}`", r.name),
                );
            }
            actions.push(r.name);
        }
    }
    if ctx.toolkit.operator(&name).is_some() {
        ctx.diag(
            item,
            Severity::Error,
            Code::DuplicateName,
            format!("operator `{name}` is declared twice"),
        );
        return;
    }
    let (threshold, hops) = ctx.tuning(item);
    let mut op = Operator::new(name, actions);
    op.threshold = threshold;
    op.hops = hops;
    op.anchor = ctx.doc.anchor_name(item).map(str::to_string);
    op.origin = Some(ctx.origin(ctx.doc.resolve(item)));
    ctx.toolkit.operators.push(op);
}
