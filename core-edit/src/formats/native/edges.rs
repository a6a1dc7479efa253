//! An action's edges (SPEC 3.1): each `tools` item makes a Call edge (an item naming a group,
//! one per member) and each `next` item a Next edge, in file order, with duplicates,
//! unknown names and the memory budget reported where they are.
//!
//! (A second thread once planned most actions' edges on large files: 0.60 s against 0.68 s
//! for a 100k-action load whose target is 2 s, for 700 lines and a fuzz target; removed, see
//! docs/performance.md.)

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;

use crate::diag::{Code, Severity};
use crate::model::{Names, NodeKind, Origin, Toolkit};

use crate::formats::ctx::{Ctx, Ref};
use crate::source::yaml::NodeId;

/// Each group's member names, by group name.
pub type Members = HashMap<String, Vec<String>>;

/// Makes the edges of the `declared` actions (item, node), in order.
pub fn make_edges(ctx: &mut Ctx<'_>, declared: &[(NodeId, NodeIndex)], members: &Members) {
    let mut seen = Targets::default();
    for (done, &(item, a)) in declared.iter().enumerate() {
        grow_edges(ctx, done, declared.len());
        serial_edges(ctx, item, a, members, &mut seen);
    }
}

/// Makes an action's edges one item at a time, reporting what is wrong and creating
/// implicit tools for undeclared names.
fn serial_edges(
    ctx: &mut Ctx<'_>,
    item: NodeId,
    a: NodeIndex,
    members: &Members,
    seen: &mut Targets,
) {
    seen.clear(ctx.toolkit.out_edges(a).next().is_none());
    let refs: Vec<Ref> = ctx
        .list(item, "tools")
        .into_iter()
        .filter_map(|t| ctx.reference(t, true))
        .collect();
    let named: Vec<Named> = refs
        .iter()
        .map(|r| name(ctx.toolkit.names(), members, r.name))
        .collect();
    let own = own_names(&refs, &named);
    let mut targets = Vec::new();
    for (r, n) in refs.iter().zip(&named) {
        targets.clear();
        if !call_targets(ctx.toolkit.names(), n, r.name, &own, &mut targets) {
            targets.push(ctx.implicit_tool(r));
        }
        let score = r.score.unwrap_or(1.0);
        let origin = Some(ctx.origin(r.item));
        for &target in &targets {
            add_scored_edge(ctx, seen, a, target, score, origin, r.item);
        }
    }
    for n in ctx.list(item, "next") {
        let Some(r) = ctx.reference(n, true) else {
            continue;
        };
        let Some(b) = ctx.toolkit.action(r.name) else {
            unknown_next(ctx, a, &r);
            continue;
        };
        let origin = Some(ctx.origin(r.item));
        add_scored_edge(ctx, seen, a, b, r.score.unwrap_or(1.0), origin, r.item);
    }
}

/// A `next` item naming no action of this file: another opened file may define it
/// (`load_paths` settles this after merging).
fn unknown_next(ctx: &mut Ctx<'_>, a: NodeIndex, r: &Ref) {
    let name = ctx.toolkit.name(a).to_string();
    ctx.unresolved.push(crate::source::Unresolved {
        from: name.clone(),
        to: r.name.to_string(),
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
}

/// What a `tools` item of an action names.
enum Named<'m> {
    Tool(NodeIndex),
    /// A group, with its members' names.
    Group(&'m [String]),
    /// Nothing declared (yet): an implicit tool.
    Unknown,
}

/// A tool, else a group's members (a tool of the same name wins), else nothing declared.
/// One name lookup per item: a 100k-action file has hundreds of thousands of them.
fn name<'m>(names: &Names, members: &'m Members, name: &str) -> Named<'m> {
    match names.find(NodeKind::Tool, name) {
        Some(t) => Named::Tool(t),
        None => members
            .get(name)
            .map_or(Named::Unknown, |m| Named::Group(m)),
    }
}

/// A member named by an item of its own (`{name: MEMBER, score: S}`) takes that item's
/// score wherever it stands; the group reference gives the other members theirs. Built
/// only when the action names a group.
fn own_names<'r>(refs: &[Ref<'r>], named: &[Named]) -> HashSet<&'r str> {
    if !named.iter().any(|t| matches!(t, Named::Group(_))) {
        return HashSet::new();
    }
    refs.iter()
        .zip(named)
        .filter(|(_, t)| !matches!(t, Named::Group(_)))
        .map(|(r, _)| r.name)
        .collect()
}

/// The targets of an item called `item_name` that names `named`, into `out`; `false` when
/// it names nothing declared.
fn call_targets(
    names: &Names,
    named: &Named,
    item_name: &str,
    own: &HashSet<&str>,
    out: &mut Vec<NodeIndex>,
) -> bool {
    match named {
        Named::Group(m) if !m.is_empty() => out.extend(
            m.iter()
                .filter(|n| !own.contains(n.as_str()))
                .filter_map(|n| names.find(NodeKind::Tool, n)),
        ),
        Named::Group(_) => out.extend(names.find(NodeKind::Group, item_name)),
        Named::Tool(t) => out.push(*t),
        Named::Unknown => return false,
    }
    true
}

/// Before the action at `done` of `total` makes its edges: when the edge array is about
/// full, room for the rest at the rate so far. The first reservation counts listed items,
/// and an item naming a group makes an edge per member, so the array would otherwise double
/// (at 100k actions, from 656k to 1.3M edges: 28 MB of address space left unused).
fn grow_edges(ctx: &mut Ctx<'_>, done: usize, total: usize) {
    let graph = &ctx.toolkit.graph;
    let (made, room) = (graph.edge_count(), graph.capacity().1);
    if room.saturating_sub(made) > 64 || done == 0 {
        return;
    }
    let rest = (made / done + 1) * (total - done) + 64;
    ctx.reserve(0, rest);
}

/// The targets of the action whose edges are being made.
#[derive(Default)]
struct Targets {
    /// Whether the action had no edges when its own began (else the graph is asked).
    fresh: bool,
    made: HashSet<NodeIndex, foldhash::fast::RandomState>,
}

impl Targets {
    /// An action's edges are all made together, so while it had none before, a set of the
    /// targets made so far tells a duplicate apart without walking the graph's edge lists.
    fn clear(&mut self, fresh: bool) {
        self.fresh = fresh;
        self.made.clear();
    }

    /// Whether `a -> b` exists already.
    fn exists(&self, tk: &Toolkit, a: NodeIndex, b: NodeIndex) -> bool {
        if self.fresh {
            self.made.contains(&b)
        } else {
            tk.edge(a, b).is_some()
        }
    }
}

fn add_scored_edge(
    ctx: &mut Ctx<'_>,
    seen: &mut Targets,
    a: NodeIndex,
    b: NodeIndex,
    score: f64,
    origin: Option<Origin>,
    item: NodeId,
) {
    if seen.exists(&ctx.toolkit, a, b) {
        let label = format!("{} -> {}", ctx.toolkit.name(a), ctx.toolkit.name(b));
        ctx.diag(
            item,
            Severity::Warning,
            Code::DuplicateEdge,
            format!("edge {label} is listed twice; the first one counts"),
        );
        return;
    }
    if ctx.charge_edge(item) && ctx.toolkit.add_new_edge(a, b, score, origin).is_some() {
        seen.made.insert(b);
    }
}
