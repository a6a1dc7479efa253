//! An action's edges (SPEC 3.1): each `tools` item makes a Call edge (an item naming a group,
//! one per member) and each `next` item a Next edge.
//!
//! On a large file the actions are taken in blocks. A second thread resolves the references
//! of most blocks into plans (each edge's target, score and item), while this thread makes
//! the edges of every [`OWN_EVERY`]th block itself and applies the plans of the others, all
//! in file order. Resolving is most of the work: reading each item's keys and looking its
//! name up, a cache miss in a table of 125k names. The second thread runs at most [`AHEAD`]
//! blocks ahead, so plans never hold more than a few blocks' edges.
//!
//! The result is the one a single thread makes, edge for edge and diagnostic for
//! diagnostic:
//! - A plan is made only for an action whose items all read cleanly (nothing to report) and
//!   name declared nodes. Anything else (a shape error, a score out of range, an undeclared
//!   tool that becomes an implicit one, a `next` naming no action of this file) leaves the
//!   action to the serial path, in its turn.
//! - Duplicates, the memory budget and the edges themselves are settled when a plan is
//!   applied, in order, by the same code as on the serial path.
//! - While edges are made, the name index only gains implicit tools, and only for names
//!   that are neither a tool nor a group. A plan never resolves such a name, so a plan made
//!   against the index as this phase began resolves every item as the index at its turn
//!   would. The second thread holds that index (shared, see `Names`); before the serial
//!   path adds a name, this thread stops the second one, so the index is never copied.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use petgraph::stable_graph::NodeIndex;

use crate::diag::{Code, Severity};
use crate::model::{Names, NodeKind, Origin, Toolkit};

use super::ctx::{Ctx, Ref, list_items, read_ref, score_value};
use super::yaml::{Doc, NodeId};

/// Each group's member names, by group name.
pub type Members = HashMap<String, Vec<String>>;

/// Of every this many blocks, this thread makes the first one's edges itself and the
/// second thread plans the others. Planning an action costs about 60% of making its edges
/// here, and applying a plan the other 40% (100k file), so this thread's 1 + 4 x 0.4 about
/// matches the second thread's 4 x 0.6.
const OWN_EVERY: usize = 5;

/// Most actions in a block; a smaller file is cut in [`BLOCKS`] blocks (of one action at
/// least), so both threads always have a share.
const MAX_BLOCK: usize = 1024;
const BLOCKS: usize = 64;

/// Plans the second thread may have sent and this one not yet taken: it waits rather than
/// run further ahead (a queue of all of them held 9 MB more at a 100k-action load's peak).
const AHEAD: usize = OWN_EVERY;

/// Whether this thread makes the edges of block `b` itself.
fn own(b: usize) -> bool {
    b.is_multiple_of(OWN_EVERY)
}

/// Makes the edges of the `declared` actions (item, node), in order; on two threads from
/// `two_threads_from` actions on a machine with two cores or more.
pub fn make_edges(
    ctx: &mut Ctx<'_>,
    declared: &[(NodeId, NodeIndex)],
    members: &Members,
    two_threads_from: usize,
) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if declared.len() < two_threads_from || cores < 2 {
        let mut seen = Targets::default();
        for (done, &(item, a)) in declared.iter().enumerate() {
            grow_edges(ctx, done, declared.len());
            serial_edges(ctx, item, a, members, &mut seen);
        }
        return;
    }
    let block = (declared.len() / BLOCKS).clamp(1, MAX_BLOCK);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel(AHEAD);
        let planner = Planner {
            doc: ctx.doc,
            names: ctx.toolkit.names().clone(),
            members,
            room: ctx.edge_room(),
            tx,
            stop: &stop,
        };
        let planner = std::thread::Builder::new()
            .name("toolscope-plan".into())
            .spawn_scoped(s, move || planner.plan_blocks(declared, block))
            .ok();
        let mut run = Run {
            planner,
            rx,
            taken: VecDeque::new(),
            stop: &stop,
            seen: Targets::default(),
            scratch: Scratch::default(),
            total: declared.len(),
        };
        let mut done = 0;
        for (b, actions) in declared.chunks(block).enumerate() {
            if own(b) {
                run.own_block(ctx, done, actions, members);
            } else {
                run.planned_block(ctx, done, actions, members);
            }
            done += actions.len();
        }
        run.wait_for_planner();
    });
}

/// The state of one [`make_edges`] on this thread.
struct Run<'s> {
    /// The second thread, until it is waited for (`None` if it could not start).
    planner: Option<std::thread::ScopedJoinHandle<'s, ()>>,
    rx: mpsc::Receiver<Chunk>,
    /// Plans taken from `rx` while waiting for the second thread to stop.
    taken: VecDeque<Chunk>,
    stop: &'s AtomicBool,
    seen: Targets,
    scratch: Scratch,
    total: usize,
}

impl Run<'_> {
    /// The edges of a block of this thread's, from `done` on: planned and applied here, or
    /// on the serial path (once the second thread no longer reads the name index).
    fn own_block(
        &mut self,
        ctx: &mut Ctx<'_>,
        done: usize,
        actions: &[(NodeId, NodeIndex)],
        members: &Members,
    ) {
        let mut edges = std::mem::take(&mut self.scratch.edges);
        for (k, &(item, a)) in actions.iter().enumerate() {
            grow_edges(ctx, done + k, self.total);
            edges.clear();
            let (doc, names) = (ctx.doc, ctx.toolkit.names());
            if plan(
                doc,
                names,
                members,
                item,
                usize::MAX,
                &mut self.scratch,
                &mut edges,
            ) {
                apply(ctx, &mut self.seen, a, &edges);
            } else {
                self.wait_for_planner();
                serial_edges(ctx, item, a, members, &mut self.seen);
            }
        }
        self.scratch.edges = edges;
    }

    /// The edges of a block the second thread planned, from `done` on: its plans applied,
    /// or the serial path for an action it left (or for all, once it has stopped).
    fn planned_block(
        &mut self,
        ctx: &mut Ctx<'_>,
        done: usize,
        actions: &[(NodeId, NodeIndex)],
        members: &Members,
    ) {
        let chunk = self.next_chunk();
        for (k, &(item, a)) in actions.iter().enumerate() {
            grow_edges(ctx, done + k, self.total);
            match chunk.as_ref().and_then(|c| c.edges(k)) {
                Some(edges) => apply(ctx, &mut self.seen, a, edges),
                None => {
                    self.wait_for_planner();
                    serial_edges(ctx, item, a, members, &mut self.seen);
                }
            }
        }
    }

    /// The second thread's next plan (they come in block order); `None` once it has ended
    /// and all it sent is taken.
    fn next_chunk(&mut self) -> Option<Chunk> {
        self.taken.pop_front().or_else(|| self.rx.recv().ok())
    }

    /// Stops the second thread after the block it is planning and waits for it; the plans
    /// it sent stay, in order, for [`Run::next_chunk`] (the blocks after them go the serial
    /// way). Taking them is what lets it finish a send it may be waiting in.
    fn wait_for_planner(&mut self) {
        let Some(planner) = self.planner.take() else {
            return;
        };
        self.stop.store(true, Ordering::Relaxed);
        while let Ok(chunk) = self.rx.recv() {
            self.taken.push_back(chunk);
        }
        // A panic there (none is known) only leaves more to the serial path.
        let _ = planner.join();
    }
}

/// One edge of a plan: a Call to a tool or group, or a Next to an action.
struct Planned {
    target: NodeIndex,
    item: NodeId,
    score: f64,
}

/// The plans of one block.
struct Chunk {
    edges: Vec<Planned>,
    /// Where each action's edges end in `edges`, with [`SERIAL`] set for an action left to
    /// the serial path (which ends where the one before it does).
    ends: Vec<u32>,
}

const SERIAL: u32 = 1 << 31;

impl Chunk {
    /// The planned edges of the block's action `k`; `None` for the serial path.
    fn edges(&self, k: usize) -> Option<&[Planned]> {
        let end = *self.ends.get(k)?;
        if end & SERIAL != 0 {
            return None;
        }
        let before = k.checked_sub(1).and_then(|j| self.ends.get(j));
        let start = before.map_or(0, |&e| e & !SERIAL);
        self.edges.get(start as usize..end as usize)
    }
}

/// The second thread's share of [`make_edges`].
struct Planner<'e> {
    doc: &'e Doc,
    /// The name index as the phase began (shared, not copied).
    names: Names,
    members: &'e Members,
    /// The most edges its plans may hold: what the edge cap and the memory budget let the
    /// load make. A hostile file naming a large group from every action would otherwise
    /// plan far more edges than the load may make.
    room: usize,
    tx: mpsc::SyncSender<Chunk>,
    /// Set when it is to end after the block it is planning.
    stop: &'e AtomicBool,
}

impl Planner<'_> {
    /// Plans the blocks of `declared` that are not this thread's, sent in order until the
    /// receiver is gone, `stop` is set or the plans hold `room` edges (the rest then goes
    /// the serial way).
    fn plan_blocks(&self, declared: &[(NodeId, NodeIndex)], block: usize) {
        let mut scratch = Scratch::default();
        let mut planned = 0usize;
        let blocks = declared.chunks(block).enumerate();
        for (_, actions) in blocks.filter(|&(b, _)| !own(b)) {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let chunk = self.plan_block(actions, planned, &mut scratch);
            planned += chunk.edges.len();
            let full = planned >= self.room;
            if self.tx.send(chunk).is_err() || full {
                return;
            }
        }
    }

    /// The plans of one block, with `planned` edges planned before it.
    fn plan_block(
        &self,
        actions: &[(NodeId, NodeIndex)],
        planned: usize,
        scratch: &mut Scratch,
    ) -> Chunk {
        let mut chunk = Chunk {
            edges: Vec::new(),
            ends: Vec::with_capacity(actions.len()),
        };
        for &(item, _) in actions {
            let before = chunk.edges.len();
            let limit = before.saturating_add(self.room.saturating_sub(planned + before));
            let (doc, names, members) = (self.doc, &self.names, self.members);
            let ok = plan(doc, names, members, item, limit, scratch, &mut chunk.edges);
            let end = u32::try_from(chunk.edges.len()).ok();
            match end.filter(|&e| ok && e < SERIAL) {
                Some(end) => chunk.ends.push(end),
                None => {
                    chunk.edges.truncate(before);
                    chunk.ends.push(before as u32 | SERIAL);
                }
            }
        }
        chunk
    }
}

/// Buffers reused from one action's plan to the next.
#[derive(Default)]
struct Scratch {
    targets: Vec<NodeIndex>,
    edges: Vec<Planned>,
}

/// Appends the edges of the action `item` to `out`; `false` (with `out` partly filled) when
/// the action needs the serial path: something to report, an item naming nothing declared,
/// or `out` longer than `limit`.
fn plan(
    doc: &Doc,
    names: &Names,
    members: &Members,
    item: NodeId,
    limit: usize,
    scratch: &mut Scratch,
    out: &mut Vec<Planned>,
) -> bool {
    let Ok(tools) = list_items(doc, item, "tools") else {
        return false;
    };
    let Some(refs) = tools
        .iter()
        .map(|&t| clean_ref(doc, t))
        .collect::<Option<Vec<Ref>>>()
    else {
        return false;
    };
    let named: Vec<Named> = refs.iter().map(|r| name(names, members, r.name)).collect();
    let own = own_names(&refs, &named);
    for (r, n) in refs.iter().zip(&named) {
        scratch.targets.clear();
        if !call_targets(names, n, r.name, &own, &mut scratch.targets)
            || out.len() + scratch.targets.len() > limit
        {
            return false;
        }
        let score = r.score.unwrap_or(1.0);
        out.extend(scratch.targets.iter().map(|&target| Planned {
            target,
            item: r.item,
            score,
        }));
    }
    let Ok(next) = list_items(doc, item, "next") else {
        return false;
    };
    for &n in next {
        let Some(r) = clean_ref(doc, n) else {
            return false;
        };
        let Some(target) = names.find(NodeKind::Action, r.name) else {
            return false;
        };
        if out.len() >= limit {
            return false;
        }
        out.push(Planned {
            target,
            item: r.item,
            score: r.score.unwrap_or(1.0),
        });
    }
    true
}

/// A reference item with nothing to report about it.
fn clean_ref(doc: &Doc, item: NodeId) -> Option<Ref<'_>> {
    let (name, score) = read_ref(doc, item).ok()?;
    let score = match score {
        Some(v) => Some(score_value(doc, v).ok()?),
        None => None,
    };
    Some(Ref { name, score, item })
}

/// Makes an action's edges planned by [`plan`].
fn apply(ctx: &mut Ctx<'_>, seen: &mut Targets, a: NodeIndex, edges: &[Planned]) {
    seen.clear(ctx.toolkit.out_edges(a).next().is_none());
    for p in edges {
        let origin = Some(ctx.origin(p.item));
        add_scored_edge(ctx, seen, a, p.target, p.score, origin, p.item);
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
    ctx.unresolved.push(super::Unresolved {
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

#[cfg(test)]
mod tests;
