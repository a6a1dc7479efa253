//! Many edits at once (`fit` sets thousands of scores and adds Next edges): patched from one
//! parse of the file and verified once, instead of a parse and a verification per edit.
//!
//! The bytes are those the edits give applied one by one (tests/suite/prop_batch.rs
//! compares the two on random files). Each edit is patched, in order, against the one
//! parse of the text before the transaction and the graph as the edits before it left it
//! (so a member scored to the score its group was just given changes nothing, as it would
//! one by one). Edits of one action that build on each other's text are the exception:
//! two edges added to one action (the second goes into the list the first made, or after
//! the item the first appended), or several scores among an action's MCP group and its
//! members (a member's own item goes next to the group's reference, and the two can land
//! at one place). Those actions are patched edit by edit in their own lines, cut out and
//! parsed alone (as `formats::native::window` does for one edit of a large file), so
//! insertions at one place come in the order the edits one by one give; the action's lines
//! change as one splice. In a Chat2Graph config every new score is an entry at the end of
//! the one top-level `scores:` list: the entries are held back as the edits make them and
//! appended in the edits' order in one insertion (or make the list, once, with all of
//! them), the text the edits one by one give, each entry after the one before. An edit
//! there that looks up an edge an earlier edit of the batch wrote (an MCP server scored
//! with its tools from one action: each finds the other's entries) or that removes entries
//! declines the batch. Anything else that still meets at one place (an anchored list two
//! actions share, a file with no such lines) declines the batch and the edits go one by
//! one.

use std::collections::{HashMap, HashSet};

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch, Undo, unchanged};
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::yaml::Limits;
use crate::source::{Format, SourceFile, yaml};

/// Fewer edits than this go one by one (the per-edit path also finds edit windows).
pub(crate) const MIN_EDITS: usize = 16;

/// How many of the transaction's first edits a batch can take: scores, and in a native
/// file added edges (`fit` adds none to a Chat2Graph config, whose chains fix its edges).
pub(crate) fn leading(edits: &[Edit], format: Format) -> usize {
    edits
        .iter()
        .take_while(|e| match e {
            Edit::SetScore { .. } => true,
            Edit::AddEdge { .. } => format == Format::Native,
            _ => false,
        })
        .count()
}

/// A batch made: the patch on the body, the graph after every edit, and their undo.
pub(crate) struct Made {
    pub patch: Patch,
    pub graph: Toolkit,
    pub undo: Undo,
}

/// The lines of one action patched edit by edit: where they were in the body, and their
/// text and parse now.
struct Lines {
    range: std::ops::Range<usize>,
    text: String,
    doc: yaml::Doc,
    /// Edits of the action not yet made.
    left: usize,
    /// The kind of edge the last edit made here added (its list now holds an item).
    appending: Option<NodeKind>,
    /// Edges appended after that one, held back (see [`in_lines`]).
    run: Option<Run>,
}

/// Added edges' texts, each right after the one before, to insert at `at` in one go.
struct Run {
    at: usize,
    text: String,
}

/// The patch of `edits` (scores and added edges, each edge once) on `file` whose graph is
/// `tk`; `None` when they cannot go as one batch (the caller makes them one by one, which
/// also reports any error an edit has).
pub(crate) fn edits(
    file: &SourceFile,
    tk: &Toolkit,
    edits: &[Edit],
    check_bytes: usize,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Made>, EditError> {
    let mut edges = HashSet::new();
    let mut per_action: HashMap<&str, (usize, bool)> = HashMap::new();
    for e in edits {
        let (Edit::SetScore {
            from, to, to_kind, ..
        }
        | Edit::AddEdge {
            from, to, to_kind, ..
        }) = e
        else {
            return Ok(None);
        };
        if !edges.insert((from, to, to_kind)) {
            return Ok(None);
        }
        let entry = per_action.entry(from.as_str()).or_default();
        entry.0 += 1;
        entry.1 |= matches!(e, Edit::AddEdge { .. }) || in_a_group(tk, to, *to_kind);
    }
    let native = file.format == Format::Native;
    // The actions whose edits build on each other's text.
    let mut cut: HashMap<&str, Option<Lines>> = HashMap::new();
    // (A Chat2Graph file has no such lines: its edits meeting at one place decline.)
    for (action, (count, builds)) in &per_action {
        if native && *count > 1 && *builds {
            cut.insert(*action, None);
        }
    }
    let body = crate::source::strip_bom(&file.text);
    let doc = yaml::parse(body, &Limits::default()).map_err(|e| EditError::Parse(e.to_string()))?;
    let nav = Nav::new(body, &doc, false);
    let chat2graph = file.format == Format::Chat2Graph;
    if chat2graph {
        // Every new score goes at the end of the one `scores:` list: held back, and
        // appended in the edits' order in one insertion below.
        nav.hold_scores();
    }
    let format = crate::formats::of(file.format);
    let mut graph = tk.clone();
    let mut out = Patch::default();
    let mut undo = Undo::default();
    let mut notes = Vec::new();
    for edit in edits {
        if stop() {
            return Err(super::stopped());
        }
        let from = match edit {
            Edit::SetScore { from, .. } | Edit::AddEdge { from, .. } => from.as_str(),
            _ => return Ok(None),
        };
        nav.next_edit();
        let patch = match cut.get_mut(from) {
            None => match format.patch(&nav, &graph, edit) {
                Ok(mut p) => {
                    out.splices.append(&mut p.splices);
                    p
                }
                // Let the edits one by one say what is wrong.
                Err(_) => return Ok(None),
            },
            Some(lines) => {
                if lines.is_none() {
                    let count = per_action.get(from).map_or(1, |c| c.0);
                    match cut_out(&nav, from, count) {
                        Some(l) => *lines = Some(l),
                        None => return Ok(None),
                    }
                }
                let Some(l) = lines.as_mut() else {
                    return Ok(None);
                };
                match in_lines(l, format, &graph, edit, body.len() <= check_bytes) {
                    Some(p) => p,
                    None => return Ok(None),
                }
            }
        };
        notes.extend(patch.notes);
        if undo.push(edit, &graph, None).is_err() || edit.apply_graph(&mut graph).is_err() {
            return Ok(None);
        }
    }
    if let Some(held) = nav.take_held() {
        if held.clash {
            return Ok(None);
        }
        if !held.items.is_empty() {
            match crate::formats::chat2graph::edit::add_scores(&nav, &held.items) {
                Ok(s) => out.splices.push(s),
                Err(_) => return Ok(None),
            }
        }
    }
    notes.extend(nav.notes.take());
    // Each action's lines whole (checked edit by edit in `in_lines`): a smaller splice
    // could end inside a scalar the edits lengthened, which the check below would read
    // as a change outside them.
    for lines in cut.into_values().flatten() {
        if body[lines.range.clone()] != lines.text {
            out.splices.push(Splice::new(lines.range, lines.text));
        }
    }
    // Each note once (a group's member notes repeat for every action that calls it).
    let mut said = HashSet::new();
    for n in notes {
        if said.insert(n.clone()) {
            out.notes.push(n);
        }
    }
    if meeting(&out.splices) {
        return Ok(None);
    }
    if body.len() <= check_bytes {
        let Ok((new, _)) = patch::apply(body, &out.splices, 0) else {
            return Ok(None);
        };
        if unchanged::same_outside_doc(&doc, body, &out.splices, &new).is_err() {
            return Ok(None);
        }
    }
    Ok(Some(Made {
        patch: out,
        graph,
        undo,
    }))
}

/// Whether an edge to `to` involves an MCP group: a group's reference, or a tool some
/// group has as a member (its own score is an item next to the group's reference).
fn in_a_group(tk: &Toolkit, to: &str, to_kind: NodeKind) -> bool {
    match to_kind {
        NodeKind::Group => true,
        NodeKind::Tool => tk.find(NodeKind::Tool, to).is_some_and(|t| {
            tk.in_edges(t)
                .any(|(e, _)| tk.graph[e].kind == EdgeKind::Has)
        }),
        NodeKind::Action => false,
    }
}

/// The lines of action `name`'s declaration, parsed alone; `None` when they hold an
/// anchor, alias or merge key (something outside could refer into them, or they to
/// something outside) or are not a block list item of their own.
fn cut_out(nav: &Nav<'_, '_>, name: &str, left: usize) -> Option<Lines> {
    let item = nav.decl("actions", name, false)?;
    let range = crate::edit::window::lines_at(nav.text, nav.doc.node(item).span.start)?;
    let text = &nav.text[range.clone()];
    if text.contains(['&', '*', '<']) {
        return None;
    }
    let doc = yaml::parse(text, &Limits::default()).ok()?;
    Some(Lines {
        range,
        text: text.to_string(),
        doc,
        left,
        appending: None,
        run: None,
    })
}

/// Makes one edit in an action's lines (and parses them again when another edit of the
/// action follows; `check`: and checks, as the edit alone on a small file is checked, that
/// nothing outside it changed); the patch's splices are spent, its notes returned.
///
/// Edges added one after another to a list an edge was just added to are appended without
/// a parse each (`fit` adds hundreds to one action): each goes right after the one before,
/// so their texts, each made against the lines as the first of them found them, are
/// joined in order and inserted at once.
fn in_lines(
    l: &mut Lines,
    format: &dyn crate::formats::FileFormat,
    graph: &Toolkit,
    edit: &Edit,
    check: bool,
) -> Option<Patch> {
    let added = match edit {
        Edit::AddEdge { to_kind, .. } => Some(*to_kind),
        _ => None,
    };
    if added.is_some() && l.appending == added {
        let nav = Nav::new(&l.text, &l.doc, true);
        let mut p = format.patch(&nav, graph, edit).ok()?;
        p.notes.extend(nav.notes.take());
        drop(nav);
        if let [one] = p.splices.as_slice()
            && one.at.is_empty()
            && l.run.as_ref().is_none_or(|r| r.at == one.at.start)
        {
            match &mut l.run {
                Some(r) => r.text.push_str(&one.with),
                None => {
                    l.run = Some(Run {
                        at: one.at.start,
                        text: one.with.clone(),
                    })
                }
            }
            l.left -= 1;
            if l.left == 0 {
                flush(l, check)?;
            }
            p.splices.clear();
            return Some(p);
        }
    }
    flush(l, check)?;
    let nav = Nav::new(&l.text, &l.doc, true);
    let mut p = format.patch(&nav, graph, edit).ok()?;
    p.notes.extend(nav.notes.take());
    drop(nav);
    let (new, _) = patch::apply(&l.text, &p.splices, 0).ok()?;
    l.left -= 1;
    if l.left > 0 || (check && !p.splices.is_empty()) {
        let doc = yaml::parse(&new, &Limits::default()).ok()?;
        // What the edit one by one checks on a small file, on its lines.
        if check {
            unchanged::same_outside_docs(&l.doc, &l.text, &p.splices, &doc).ok()?;
        }
        l.doc = doc;
    }
    p.splices.clear();
    l.text = new;
    l.appending = added;
    Some(p)
}

/// Inserts the appended edges held back (see [`in_lines`]), parsing the lines again when
/// another edit follows or the insertion is checked.
fn flush(l: &mut Lines, check: bool) -> Option<()> {
    let Some(run) = l.run.take() else {
        return Some(());
    };
    let splices = [Splice::insert(run.at, run.text)];
    let (new, _) = patch::apply(&l.text, &splices, 0).ok()?;
    if l.left > 0 || check {
        let doc = yaml::parse(&new, &Limits::default()).ok()?;
        if check {
            unchanged::same_outside_docs(&l.doc, &l.text, &splices, &doc).ok()?;
        }
        l.doc = doc;
    }
    l.text = new;
    Some(())
}

/// Whether two splices touch the same text (two insertions at one place included).
fn meeting(splices: &[Splice]) -> bool {
    let mut spans: Vec<(usize, usize)> = splices.iter().map(|s| (s.at.start, s.at.end)).collect();
    spans.sort_unstable();
    spans
        .windows(2)
        .any(|w| w[1].0 < w[0].1 || w[1].0 == w[0].0)
}
