//! The focus view's layout: fitting it to the terminal (which side panes stay, the look,
//! the columns; see [`super::fit`]), following a step without moving what stays, and
//! routing its edges ([`super::wires`]). A layout whose edges cannot all be routed apart is
//! tried again with more room.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use toolscope_core::layout::focus::{self, Blocked};
use toolscope_core::layout::pack::{self, Look};
use toolscope_core::layout::step::{self, Reasons};
use toolscope_core::layout::{Layout, structure_key};
use toolscope_core::recommend::Params;

use crate::tui::graph_pane::{GraphPane, Scene, Step, Viewport, fit, geometry, wires};
use crate::tui::panes::{Panes, Split};

/// What the focus view shows and how.
#[derive(Debug, Clone)]
pub struct Focused {
    pub layout: Layout,
    /// Box height, name cap and channel width.
    pub look: Look,
    /// Rows per column.
    pub(super) rows: u32,
    /// Columns of the fit.
    pub(super) cols: u32,
    /// The frontier: left-out nodes one edge beyond the recommendation.
    pub(super) blocked: HashMap<NodeIndex, Blocked>,
    /// Members of the recommendation when the view was last fitted (for the marks).
    pub(super) base: Vec<bool>,
    /// What the fit was made for: seeds, operator, structure, terminal size.
    pub(super) fitted_for: FitKey,
    /// The side panes hidden to make room (see [`fit`]).
    pub split: Split,
    /// The edges' routes (`None`: too large to route; drawn the cheap way).
    pub routes: Option<wires::Routes>,
    /// Cells of the layout (kept with it: computing the indents walks every column).
    pub geometry: geometry::Geometry,
    /// A step drawn as its reasons: the edges it routes (`None`: every edge).
    pub(super) only: Option<wires::Only>,
    /// Offered tools of such a step left out to fit (counted on the border).
    pub untold: usize,
    /// Such a step's offered tools by rank, each with the score that offers it (the
    /// smallest on its path): the replay's panel lists them.
    pub ranked: Vec<(NodeIndex, f64)>,
    /// What keeps such a step's called tool out (its edge is labelled).
    pub keeping: Option<step::Keeping>,
}

/// What a fit is made for: seeds, operator, structure, terminal size.
type FitKey = (Vec<NodeIndex>, Option<usize>, u64, (u16, u16));

pub(super) fn fit_key(pane: &GraphPane, s: &Scene<'_>) -> FitKey {
    let key = pane.names_key.unwrap_or_else(|| structure_key(s.tk));
    (s.seeds.to_vec(), s.operator, key, s.size)
}

fn members(s: &Scene<'_>) -> Vec<NodeIndex> {
    s.rec.actions.iter().chain(&s.rec.tools).copied().collect()
}

/// What the focus view draws: the nodes kept, the frontier's blocking edges, and, for a
/// step drawn as its reasons, the edges it routes and the nodes outside the
/// recommendation it pins.
#[derive(Debug, Clone)]
struct Set {
    keep: Vec<bool>,
    blocked: HashMap<NodeIndex, Blocked>,
    only: Option<wires::Only>,
    pinned: Vec<NodeIndex>,
    /// Members kept.
    members: usize,
    /// Offered tools left out (the step did not fit; they are counted).
    untold: usize,
    ranked: Vec<(NodeIndex, f64)>,
    keeping: Option<step::Keeping>,
}

/// The members, their frontier, and which nodes to keep.
fn focus_set(s: &Scene<'_>) -> Set {
    let members = members(s);
    let rec = s.rec;
    let frontier = focus::frontier(s.tk, &members, &|ix| rec.contains(ix));
    let mut keep = vec![false; s.tk.graph.node_bound()];
    for &m in &members {
        keep[m.index()] = true;
    }
    for b in &frontier {
        keep[b.node.index()] = true;
    }
    let blocked = frontier.into_iter().map(|b| (b.node, b)).collect();
    Set {
        keep,
        blocked,
        only: None,
        pinned: s.selected.into_iter().collect(),
        members: members.len(),
        untold: 0,
        ranked: Vec::new(),
        keeping: None,
    }
}

/// Whether the view is drawn as the step's reasons: the edges among the recommended nodes
/// outnumber them (a learned kit, where most actions lead to most others), or a replayed
/// call lies beyond the recommendation and its frontier (the path that would bring it in
/// must be drawn).
fn as_reasons(s: &Scene<'_>) -> bool {
    if step::is_knotted(s.tk, s.rec) {
        return true;
    }
    s.called
        .is_some_and(|c| !s.rec.contains(c) && !s.tk.in_edges(c).any(|(_, u)| s.rec.contains(u)))
}

/// The set of a step drawn as its reasons, with at most `most` offered tools.
fn reasons_set(s: &Scene<'_>, r: &Reasons, most: usize) -> Set {
    let d = r.drawn(s.tk, s.rec, most);
    let mut keep = vec![false; s.tk.graph.node_bound()];
    for &n in &d.nodes {
        keep[n.index()] = true;
    }
    for b in &d.frontier {
        keep[b.node.index()] = true;
    }
    let mut blocked: HashMap<NodeIndex, Blocked> =
        d.frontier.iter().map(|b| (b.node, *b)).collect();
    let mut first = HashSet::new();
    if let Some(c) = &r.called {
        first.extend(c.path.iter().map(|p| p.edge));
        if let Some(k) = c.keeping {
            let b = Blocked {
                node: k.step.to,
                edge: k.step.edge,
                score: k.step.score,
            };
            blocked.insert(b.node, b);
        }
    }
    let rec = s.rec;
    let members = d.nodes.iter().filter(|&&n| rec.contains(n)).count();
    let pinned = d
        .nodes
        .iter()
        .copied()
        .filter(|&n| !rec.contains(n))
        .collect();
    Set {
        keep,
        blocked,
        only: Some(wires::Only {
            edges: d.edges.into_iter().collect(),
            first,
        }),
        pinned,
        members,
        untold: d.untold,
        ranked: r.ranked.clone(),
        keeping: r.called.as_ref().and_then(|c| c.keeping),
    }
}

/// Offered tools drawn at most, tried from all down until the step fits: the seeds and the
/// called tool's path always, then the offered tools by rank.
const MOST_TOOLS: [usize; 7] = [30, 15, 10, 6, 3, 1, 0];

/// The set to lay out: the whole focus set, or a step's reasons cut to fit.
fn fitting_set(s: &Scene<'_>, splits: &[crate::tui::panes::Split]) -> Set {
    if !as_reasons(s) {
        return focus_set(s);
    }
    let params = Params {
        threshold: s.threshold,
        hops: s.hops,
    };
    let r = Reasons::of(s.tk, s.seeds, params, s.rec, s.called);
    let n = r.ranked.len();
    let rec = s.rec;
    let is_member = |ix: NodeIndex| rec.contains(ix);
    // Only a step is cut to fit: the operator's own view keeps its whole recommendation
    // (the border says what lies beyond the pane, and `n` goes there).
    let cuts = if s.called.is_some() || s.step {
        &MOST_TOOLS[..]
    } else {
        &[]
    };
    let mut last = None;
    for most in std::iter::once(n).chain(cuts.iter().copied().filter(|&m| m < n)) {
        let set = reasons_set(s, &r, most);
        let want = fit::Want {
            tk: s.tk,
            keep: &set.keep,
            is_member: &is_member,
            members: set.members,
            roots: s.seeds,
            pinned: &set.pinned,
        };
        let seqs = fit::Sequences::of(&want);
        if cuts.is_empty() || fit::choose(&want, &seqs, s.size, splits, false).fits {
            return set;
        }
        last = Some(set);
    }
    last.unwrap_or_else(|| reasons_set(s, &r, 0))
}

impl GraphPane {
    /// A fresh layout fitted to the terminal (see [`fit`]), with the viewport at its origin.
    pub fn refit(&mut self, s: &Scene<'_>) -> Step {
        self.lay_out(s, None)
    }

    /// Lays the focus view out afresh. `since`: the members at the last fit, when a step
    /// needs the room of a new layout; what entered and left since then stays marked, and
    /// nodes that left are kept (after everything else) while there is room.
    fn lay_out(&mut self, s: &Scene<'_>, since: Option<(Vec<bool>, Vec<NodeIndex>)>) -> Step {
        let was = self.split();
        let splits = fit::splits(self.side_panes_hidden);
        let Set {
            mut keep,
            blocked,
            only,
            pinned,
            members: kept_members,
            untold,
            ranked,
            keeping,
        } = fitting_set(s, &splits);
        let members = members(s);
        let base = match since {
            Some((base, left)) => {
                for ix in left {
                    keep[ix.index()] = true;
                }
                base
            }
            None => {
                let mut base = vec![false; s.tk.graph.node_bound()];
                for &m in &members {
                    base[m.index()] = true;
                }
                base
            }
        };
        let fitted_for = fit_key(self, s);
        // A layout some edge of which cannot be routed apart from the others (so would not
        // be drawn) is tried again with more room (the next split), keeping the best.
        let mut best: Option<Focused> = None;
        let tries = (0..splits.len()).flat_map(|from| [(from, false), (from, true)]);
        let rec = s.rec;
        let is_member = |ix: NodeIndex| rec.contains(ix);
        let want = fit::Want {
            tk: s.tk,
            keep: &keep,
            is_member: &is_member,
            members: kept_members,
            roots: s.seeds,
            pinned: &pinned,
        };
        let seqs = fit::Sequences::of(&want);
        for (from, roomy) in tries {
            let choice = fit::choose(&want, &seqs, s.size, &splits[from..], roomy);
            let layout = pack::pack(s.tk, &choice.seq, choice.rows, fitted_for.2);
            let geometry = geometry::Geometry::packed(&layout, s.tk, choice.look);
            let pane = Panes::new(s.size, choice.split).graph_inner();
            let mut routes = wires::route(
                s.tk,
                s.rec,
                s.threshold,
                &layout,
                &geometry,
                (i32::from(pane.width), i32::from(pane.height)),
                only.as_ref(),
            );
            // A step drawn as its reasons leaves out what would knot its drawing.
            if let (Some(r), Some(o)) = (routes.as_mut(), only.as_ref()) {
                super::unknot::unknot(r, &o.first, s.tk, &layout, &geometry);
            }
            let left_out = routes.as_ref().map_or(0, |r| r.left_out);
            let tried = Focused {
                geometry,
                cols: layout.layers.len() as u32,
                layout,
                look: choice.look,
                rows: choice.rows as u32,
                blocked: blocked.clone(),
                base: base.clone(),
                fitted_for: fitted_for.clone(),
                split: choice.split,
                routes,
                only: only.clone(),
                untold,
                ranked: ranked.clone(),
                keeping,
            };
            let better = best.as_ref().is_none_or(|b| {
                left_out < b.routes.as_ref().map_or(0, |r| r.left_out) && choice.fits
            });
            if better {
                best = Some(tried);
            }
            // More room helps a view that fits; one that overflows the pane keeps its look,
            // and so does one too large for more room to route apart (each try routes).
            let edges = tried_edges(&best);
            if left_out == 0 || !choice.fits || edges > MOST_RETRIED {
                break;
            }
        }
        self.focus_view = best;
        self.viewport = Viewport::default();
        let now = self.split();
        if now == was {
            return Step::default();
        }
        self.panes_changed(now)
    }

    /// The focus view hid or showed side panes: the shell keeps the active pane a shown
    /// one, and hiding says so once (the title keeps saying it).
    fn panes_changed(&self, now: Split) -> Step {
        let hiding = now.hide_nav || now.hide_inspector;
        let say = self.side_panes_hidden.is_none().then(|| {
            if !hiding {
                // After a resize that gives the panes room again: the message that they
                // were hidden would be stale.
                return "the side panes fit again".to_string();
            }
            let what = if now.hide_nav {
                "side panes hidden"
            } else {
                "inspector hidden"
            };
            format!("{what} so the whole recommendation fits; m shows them")
        });
        Step {
            panes: Some(now),
            say,
            show: None,
        }
    }

    /// Routes the focus view's edges for its current layout.
    fn reroute(&mut self, s: &Scene<'_>) {
        let pane = self.inner(s.size);
        let Some(f) = self.focus_view.as_mut() else {
            return;
        };
        f.routes = wires::route(
            s.tk,
            s.rec,
            s.threshold,
            &f.layout,
            &f.geometry,
            pane,
            f.only.as_ref(),
        );
    }

    /// Follows a change of the recommendation without moving what stays: entering nodes
    /// take free slots beside a neighbour, nodes that left stay where they were (marked)
    /// while there is room. When the recommendation no longer fits that way, the view is
    /// laid out afresh (the marks kept). Either way the viewport then holds the whole
    /// recommendation.
    pub(super) fn follow(&mut self, s: &Scene<'_>) -> Step {
        if as_reasons(s) || self.focus_view.as_ref().is_some_and(|f| f.only.is_some()) {
            // A step's reasons change with the threshold (another tree, another cut):
            // laid out afresh, the marks of what entered and left kept.
            let since = self
                .focus_view
                .as_ref()
                .map(|f| (f.base.clone(), Vec::new()));
            return self.lay_out(s, since);
        }
        let Set {
            mut keep, blocked, ..
        } = focus_set(s);
        let pane = self.inner(s.size);
        let Some(f) = self.focus_view.as_ref() else {
            return Step::default();
        };
        let was = |ix: NodeIndex| f.base.get(ix.index()).copied().unwrap_or(false);
        let left: Vec<NodeIndex> = f
            .layout
            .placed()
            .map(|(ix, _)| ix)
            .filter(|&ix| was(ix) && !keep[ix.index()])
            .collect();
        for &ix in &left {
            keep[ix.index()] = true;
        }
        let rec = s.rec;
        let seq = pack::sequence(s.tk, &keep, &|ix| rec.contains(ix), s.seeds, false);
        let rows = (f.look.rows_in(pane.1) as u32).max(f.rows);
        let key = f.fitted_for.2;
        let layout = pack::keep_within(s.tk, &f.layout, &seq, f.cols + 2, rows, key);
        let geo = geometry::Geometry::packed(&layout, s.tk, f.look);
        // Everything shown must fit, or the view is laid out afresh (which shows at least
        // the whole recommendation).
        let all: Vec<NodeIndex> = layout.placed().map(|(ix, _)| ix).collect();
        let base = f.base.clone();
        let Some(bounds) =
            bounds_of(s, &layout, &geo, &all).filter(|b| b.w <= pane.0 && b.h <= pane.1)
        else {
            return self.lay_out(s, Some((base, left)));
        };
        let left_out = |pane: &GraphPane| {
            pane.focus_view
                .as_ref()
                .and_then(|f| f.routes.as_ref())
                .map_or(0, |r| r.left_out)
        };
        let before = left_out(self);
        if let Some(f) = self.focus_view.as_mut() {
            f.layout = layout;
            f.geometry = geo;
            f.blocked = blocked;
        }
        self.reroute(s);
        let small = self
            .focus_view
            .as_ref()
            .is_some_and(|f| edges_of(Some(f)) <= MOST_RETRIED);
        if left_out(self) > before && small {
            // The nodes that stay leave no room to route the new edges apart: start afresh.
            // (A view that already left edges out keeps its places while that gets no
            // worse, and a large view always does: laying out afresh would cost the key
            // press its budget.)
            return self.lay_out(s, Some((base, left)));
        }
        let v = &mut self.viewport;
        v.x = v.x.min(bounds.x).max(bounds.x + bounds.w - pane.0);
        v.y = v.y.min(bounds.y).max(bounds.y + bounds.h - pane.1);
        Step::default()
    }
}

/// Views of more edges than this are not laid out again with more room when some edge is
/// left out: Chat2Graph's operators have fewer than 60, and each try routes the view.
const MOST_RETRIED: usize = 100;

/// Edges of the kept try: routed and left out.
fn tried_edges(best: &Option<Focused>) -> usize {
    edges_of(best.as_ref())
}

/// Edges of a focus view: routed and left out.
fn edges_of(f: Option<&Focused>) -> usize {
    f.and_then(|f| f.routes.as_ref())
        .map_or(0, |r| r.by_edge.len() + r.left_out)
}

/// The smallest rectangle holding the boxes of `nodes` (`None` if one is not laid out).
fn bounds_of(
    s: &Scene<'_>,
    layout: &Layout,
    geo: &geometry::Geometry,
    nodes: &[NodeIndex],
) -> Option<geometry::WRect> {
    let mut b: Option<(i32, i32, i32, i32)> = None;
    for &m in nodes {
        let r = geo.node_rect(layout, s.tk, m)?;
        let (x0, y0, x1, y1) = b.unwrap_or((r.x, r.y, r.x + r.w, r.y + r.h));
        b = Some((
            x0.min(r.x),
            y0.min(r.y),
            x1.max(r.x + r.w),
            y1.max(r.y + r.h),
        ));
    }
    let (x0, y0, x1, y1) = b.unwrap_or_default();
    Some(geometry::WRect {
        x: x0,
        y: y0,
        w: x1 - x0,
        h: y1 - y0,
    })
}
