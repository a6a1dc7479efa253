//! Many score edits at once (`fit` sets thousands): patched from one parse of the file and
//! verified once, instead of a parse and a verification per edit.
//!
//! Setting a score rewrites one scalar (or adds a `score:` key) of one reference, and the
//! graph a score patch reads (which references exist, where) does not change with
//! scores, so every patch can be computed against the same parse. When two patches touch
//! the same text (an anchored mapping shared by several edges, two insertions at one
//! place, one edge set twice) the batch is declined and the edits go one by one.

use std::collections::HashSet;

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch, unchanged};
use crate::model::Toolkit;
use crate::source::patch::{self, Splice};
use crate::source::yaml::Limits;
use crate::source::{SourceFile, yaml};

/// Fewer edits than this go one by one (the per-edit path also finds edit windows).
pub(crate) const MIN_EDITS: usize = 16;

/// How many of the transaction's first edits are score edits a batch can take.
pub(crate) fn leading_scores(edits: &[Edit]) -> usize {
    edits
        .iter()
        .take_while(|e| matches!(e, Edit::SetScore { .. }))
        .count()
}

/// The patch of `edits` (all `SetScore`, on distinct edges) on `file` whose graph is `tk`,
/// with each edit's inverse; `None` when they cannot go as one batch.
pub(crate) fn scores(
    file: &SourceFile,
    tk: &Toolkit,
    edits: &[Edit],
    check_bytes: usize,
) -> Result<Option<(Patch, Vec<Edit>)>, EditError> {
    let mut edges = HashSet::new();
    for e in edits {
        let Edit::SetScore {
            from, to, to_kind, ..
        } = e
        else {
            return Ok(None);
        };
        if !edges.insert((from, to, to_kind)) {
            return Ok(None);
        }
    }
    let body = crate::source::strip_bom(&file.text);
    let doc = yaml::parse(body, &Limits::default()).map_err(|e| EditError::Parse(e.to_string()))?;
    let nav = Nav::new(body, &doc, false);
    let mut out = Patch::default();
    let mut inverses = Vec::with_capacity(edits.len());
    for edit in edits {
        let p = crate::formats::of(file.format).patch(&nav, tk, edit)?;
        out.splices.extend(p.splices);
        for n in p.notes {
            if !out.notes.contains(&n) {
                out.notes.push(n);
            }
        }
        inverses.extend(edit.inverse(tk)?);
    }
    out.notes.extend(nav.notes.take());
    if overlapping(&out.splices) {
        return Ok(None);
    }
    if body.len() <= check_bytes {
        let (new, _) = patch::apply(body, &out.splices, 0).map_err(EditError::Unsupported)?;
        unchanged::same_outside_doc(&doc, body, &out.splices, &new)
            .map_err(|m| EditError::Unsupported(format!("the edit is refused: {m}")))?;
    }
    Ok(Some((out, inverses)))
}

/// Whether two splices touch the same text (two insertions at one place included).
fn overlapping(splices: &[Splice]) -> bool {
    let mut spans: Vec<(usize, usize)> = splices.iter().map(|s| (s.at.start, s.at.end)).collect();
    spans.sort_unstable();
    spans
        .windows(2)
        .any(|w| w[1].0 < w[0].1 || w[1].0 == w[0].0)
}
