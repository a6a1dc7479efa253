//! The native toolkit format (SPEC 3.1): `name`, `tools`, `groups`, `actions` with `tools`
//! (Call edges) and `next` (Next edges), and `operators`.

use std::collections::{HashMap, HashSet};

use crate::diag::{Code, Severity};
use crate::model::{Node, NodeKind, Operator};

use super::edges::{Members, make_edges};
use crate::formats::ctx::{Ctx, Ref};
use crate::source::yaml::NodeId;
use petgraph::stable_graph::NodeIndex;

/// Loads the native toolkit in `ctx.doc`.
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

    reserve(ctx, &tools, &groups, &actions);
    for item in tools {
        declare_tool(ctx, item);
    }
    let members = declare_groups(ctx, groups);
    let declared: Vec<(NodeId, NodeIndex)> = actions
        .iter()
        .filter_map(|&item| declare_action(ctx, item).map(|a| (item, a)))
        .collect();
    make_edges(ctx, &declared, &members);
    for item in operators {
        operator(ctx, item);
    }
}

/// Reserves the graph's node and edge arrays at the size the file declares, so a large
/// file's graph is not copied as its arrays double (nor left up to twice its size).
fn reserve(ctx: &mut Ctx<'_>, tools: &[NodeId], groups: &[NodeId], actions: &[NodeId]) {
    let doc = ctx.doc;
    let listed = |item: NodeId, key: &str| {
        doc.get(item, key)
            .and_then(|v| doc.seq(v))
            .map_or(0, <[NodeId]>::len)
    };
    let edges: usize = actions
        .iter()
        .chain(groups)
        .map(|&a| listed(a, "tools") + listed(a, "next"))
        .sum();
    ctx.reserve(tools.len() + groups.len() + actions.len(), edges);
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

    /// Adds a declared node and returns it; a second declaration of the same kind and name
    /// is an error.
    fn declare(&mut self, item: NodeId, mut node: Node) -> Option<NodeIndex> {
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
                return None;
            }
        }
        node.origin = Some(self.origin(self.doc.resolve(item)));
        if !self.charge_node(item, &node) {
            return None;
        }
        // A node created implicitly by an earlier reference takes the declaration's place
        // (no copy of the node: a 100k-action file declares 125k of them).
        match existing {
            Some(ix) => {
                *self.toolkit.node_mut(ix) = node;
                Some(ix)
            }
            None => Some(self.toolkit.add_new_node(node)),
        }
    }

    pub(super) fn implicit_tool(&mut self, r: &Ref) -> NodeIndex {
        if let Some(t) = self.toolkit.find(NodeKind::Tool, r.name) {
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
        let mut node = Node::new(NodeKind::Tool, r.name.to_string());
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
fn declare_groups(ctx: &mut Ctx<'_>, groups: Vec<NodeId>) -> Members {
    let mut members = HashMap::new();
    // A tool name two servers' caches list is two tools, named `SERVER/TOOL` (`model::mcp`).
    let mut servers_of: HashMap<String, usize> = HashMap::new();
    for tools in ctx.mcp_members.values() {
        for t in tools {
            *servers_of.entry(t.name.clone()).or_default() += 1;
        }
    }
    for item in groups {
        let Some(name) = ctx.decl_name(item, "a group") else {
            continue;
        };
        let mut node = Node::new(NodeKind::Group, name.clone());
        node.desc = ctx.text(item, "desc").unwrap_or_default();
        node.meta = Some(Box::new(ctx.tool_meta(item, "MCP")));
        let Some(g) = ctx.declare(item, node) else {
            continue;
        };
        let mut names = Vec::new();
        // A new group has no edges: a set of its members tells a member listed twice
        // apart in constant time (walking the member's in-edges made aliased lists
        // quadratic). Each edge and name counts in the budget: `tools: *L` in 20,000 groups
        // expands the list 20,000 times.
        let mut made = HashSet::new();
        for m in ctx.list(item, "tools") {
            let Some(r) = ctx.reference(m, false) else {
                continue;
            };
            let t = ctx.implicit_tool(&r);
            if !has_edge(ctx, g, t, r.item, &mut made) {
                break;
            }
            names.push(r.name.to_string());
        }
        if names.is_empty() {
            let at = ctx.doc.resolve(item);
            let origin = ctx.origin(at);
            for mut tool in ctx.cached_members(&name).unwrap_or_default() {
                if servers_of.get(&tool.name).is_some_and(|n| *n > 1) {
                    tool.name = crate::model::mcp::qualify(&name, &tool.name);
                }
                let t = ctx.cached_member(&mut tool, origin);
                if !has_edge(ctx, g, t, at, &mut made) {
                    break;
                }
                names.push(tool.name);
            }
        }
        members.insert(name, names);
    }
    members
}

/// The Has edge `g -> t` of a group being declared (`made`: its members so far), with the
/// member's name counted in the budget; `false` once the edge cap (the rest of the group
/// is left out, and that is reported) or the budget (the load fails) is reached.
fn has_edge(
    ctx: &mut Ctx<'_>,
    g: NodeIndex,
    t: NodeIndex,
    item: NodeId,
    made: &mut HashSet<NodeIndex>,
) -> bool {
    let name_bytes = crate::formats::ctx::listed_name_bytes(ctx.toolkit.name(t).len());
    if !made.insert(t) {
        return ctx.charge(item, name_bytes);
    }
    if !ctx.edge_allowed(item) || !ctx.charge(item, name_bytes) {
        return false;
    }
    let origin = ctx.origin(item);
    ctx.toolkit.add_new_edge(g, t, 1.0, Some(origin));
    true
}

fn declare_action(ctx: &mut Ctx<'_>, item: NodeId) -> Option<NodeIndex> {
    let name = ctx.decl_name(item, "an action")?;
    let mut node = Node::new(NodeKind::Action, name);
    node.desc = ctx.text(item, "desc").unwrap_or_default();
    ctx.declare(item, node)
}

fn operator(ctx: &mut Ctx<'_>, item: NodeId) {
    let Some(name) = ctx.decl_name(item, "an operator") else {
        return;
    };
    let mut actions = Vec::new();
    for a in ctx.list(item, "actions") {
        if let Some(r) = ctx.reference(a, false) {
            if ctx.toolkit.action(r.name).is_none() {
                ctx.diag(
                    r.item,
                    Severity::Error,
                    Code::OperatorUnknownAction,
                    format!("operator `{name}` names no action: `{}`", r.name),
                );
            }
            // An aliased list is copied into every operator that uses it: counted.
            if !ctx.charge(r.item, crate::formats::ctx::listed_name_bytes(r.name.len())) {
                return;
            }
            actions.push(r.name.to_string());
        }
    }
    // The exact name: `Toolkit::operator` also resolves anchors, labels and trimmed
    // names, which would call `assistant ` a second `assistant`.
    if ctx.toolkit.operators.iter().any(|o| o.name == name) {
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

#[cfg(test)]
mod tests {
    use crate::generate::{GenOptions, generate};
    use crate::source::Limits;
    use crate::testing::load_text;

    /// Generated kits name groups from actions, so they make more edges than they list:
    /// the edge array grows at the rate seen so far instead of doubling.
    #[test]
    fn the_edge_array_ends_near_its_size() {
        let text = generate(GenOptions {
            actions: 3000,
            tools: None,
            seed: 3,
        });
        let listed = text.matches("name: t").count() + text.matches("name: g").count();
        let load = load_text(
            std::path::Path::new("g.yaml"),
            text,
            None,
            &Limits::default(),
        )
        .expect("loads");
        let graph = &load.toolkit.graph;
        let (edges, room) = (graph.edge_count(), graph.capacity().1);
        assert!(edges > listed / 2, "{edges} edges");
        assert!(
            room >= edges && room <= edges + edges / 8 + 64,
            "{room} for {edges}"
        );
    }
}
