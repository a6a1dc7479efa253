//! A fast path for edits to large native files: instead of parsing the whole file to find
//! one declaration, cut out the lines of that declaration (found from the node's recorded
//! position) and parse only those. Used only when the positions are fresh (no unsaved edit
//! to the file) and the cut-out holds no anchor or alias; anything unexpected falls back to
//! the full parse, and the whole file is still verified before it is written.

use crate::edit::doc::Nav;
use crate::edit::window::{Subject, Window, declaration_lines, origin};
use crate::edit::{Edit, Patch};
use crate::model::{Origin, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::{Format, Limits, SourceFile, yaml};

use super::edit as native;

/// The patch computed on the declaration's lines, or `None` to use the full parse.
#[cfg(test)]
pub(crate) fn patch(edit: &Edit, file: &SourceFile, tk: &Toolkit) -> Option<Patch> {
    patch_in_window(edit, file, tk).map(|(p, _)| p)
}

/// The lines of the declaration an edit changes, parsed on their own.
struct Cut<'f> {
    origin: Origin,
    subject: Subject,
    /// The lines, on the body (the text after a BOM).
    range: std::ops::Range<usize>,
    text: &'f str,
    doc: yaml::Doc,
}

/// Cuts out and parses the declaration `edit` changes; `None` (use the full parse) for a
/// Chat2Graph file, a node without a position, or lines holding an anchor, alias or merge
/// key (something outside could refer into them, or they to something outside).
fn cut<'f>(edit: &Edit, file: &'f SourceFile, tk: &Toolkit) -> Option<Cut<'f>> {
    if file.format != Format::Native {
        return None;
    }
    let (origin, subject) = origin(edit, tk)?;
    let body = crate::source::strip_bom(&file.text);
    let range = declaration_lines(body, origin)?;
    let text = &body[range.clone()];
    if text.contains(['&', '*', '<']) {
        return None;
    }
    let doc = yaml::parse(text, &Limits::default()).ok()?;
    Some(Cut {
        origin,
        subject,
        range,
        text,
        doc,
    })
}

/// [`patch`] with the window it was computed in.
pub(crate) fn patch_in_window(
    edit: &Edit,
    file: &SourceFile,
    tk: &Toolkit,
) -> Option<(Patch, Window)> {
    let c = cut(edit, file, tk)?;
    let nav = Nav::new(c.text, &c.doc, true);
    let mut out: Patch = native::patch(&nav, tk, edit).ok()?;
    out.notes.extend(nav.notes.take());
    // The whole-document check on the cut-out (no anchors or aliases in it): anything it
    // finds sends the edit to the full path, which checks the whole file.
    let (new_cut, _) = patch::apply(c.text, &out.splices, 0).ok()?;
    crate::edit::unchanged::same_outside(c.text, &out.splices, &new_cut).ok()?;
    for s in &mut out.splices {
        *s = Splice::new(
            s.at.start + c.range.start..s.at.end + c.range.start,
            std::mem::take(&mut s.with),
        );
    }
    let col = c.origin.col as usize - 1;
    Some((
        out,
        Window {
            range: c.range,
            col,
            line: c.origin.line,
            subject: c.subject,
        },
    ))
}

/// [`crate::formats::text_inverse`] on the operator's lines alone: `Some(inverse)` when the window
/// holds the operator (the inverse itself may be `None`), `None` to use the full parse. The
/// question (did the operator write the key?) is about the operator's own mapping, which
/// the window holds whole.
pub(crate) fn text_inverse(edit: &Edit, file: &SourceFile, tk: &Toolkit) -> Option<Option<Edit>> {
    let c = cut(edit, file, tk)?;
    let nav = Nav::new(c.text, &c.doc, true);
    crate::formats::restore::text_inverse(&nav, &super::Native, tk, edit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeKind;
    use crate::testing::load_text;

    use crate::generate::{GenOptions, generate};
    use std::path::Path;

    #[test]
    fn the_cut_out_gives_the_same_splices_as_the_full_parse() {
        let mut text = generate(GenOptions {
            actions: 100,
            tools: None,
            seed: 7,
        });
        text.push_str(
            "operators:\n  - name: big\n    actions: [a1]\n    # a comment\n\n    hops: 1\n",
        );
        let load = load_text(Path::new("g.yaml"), text, None, &Limits::default()).unwrap();
        let (file, tk) = (load.source, load.toolkit);
        let mut checked = 0;
        for e in tk.graph.edge_indices().step_by(9) {
            let (u, v) = tk.graph.edge_endpoints(e).unwrap();
            let (from, to, to_kind) = (tk.name(u).to_string(), tk.name(v).to_string(), tk.kind(v));
            let edits = [
                Edit::SetScore {
                    from: from.clone(),
                    to: to.clone(),
                    to_kind,
                    score: 0.33,
                },
                Edit::RemoveEdge {
                    from: from.clone(),
                    to: to.clone(),
                    to_kind,
                },
                Edit::SetDesc {
                    kind: tk.kind(v),
                    name: to.clone(),
                    text: "New.\nLines.\n".into(),
                },
                Edit::AddEdge {
                    from: to.clone(),
                    to: from.clone(),
                    to_kind: NodeKind::Action,
                    score: 0.5,
                },
            ];
            for edit in edits {
                let full = crate::formats::patch(
                    &edit,
                    &file,
                    &tk,
                    Limits::default().verify_each_edit_bytes,
                )
                .map(|p| p.splices);
                if let Some(fast) = patch(&edit, &file, &tk) {
                    assert_eq!(Ok(fast.splices), full, "{}", edit.describe());
                    checked += 1;
                }
            }
        }
        for edit in [
            Edit::SetThreshold {
                operator: "big".into(),
                value: 0.75,
            },
            Edit::SetHops {
                operator: "big".into(),
                value: 2,
            },
        ] {
            let fast = patch(&edit, &file, &tk).expect("operator window");
            assert_eq!(
                Ok(fast.splices),
                crate::formats::patch(&edit, &file, &tk, Limits::default().verify_each_edit_bytes)
                    .map(|p| p.splices)
            );
        }
        assert!(checked > 40, "only {checked} edits took the fast path");
    }
}
