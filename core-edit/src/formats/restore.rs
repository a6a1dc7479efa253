//! The text side of the edits that put things back (a node declared in full, group
//! members, seeds, an operator key removed so its default applies): what both formats
//! share, the operator's key. Each format's own part is in its folder (`restore.rs`).
//! Undo within a session restores text from the recorded splices; these forms are what a
//! pending undo is written with after the file changed on disk (reapply), so they need no
//! history to be written.

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, OperatorParam};
use crate::model::Toolkit;
use crate::source::patch::{self, Splice};
use crate::source::yaml::{NodeId, Value};

use super::FileFormat;

/// Removes the operator's `param` key, so its default applies again.
pub(crate) fn reset(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    operator: &str,
    param: OperatorParam,
) -> Result<Vec<Splice>, EditError> {
    operator_map(nav, format, tk, operator).and_then(|map| remove_entry(nav, map, param.key()))
}

/// The undo of `edit` when the text tells more than the graph: setting a threshold or hops
/// the operator did not write is undone by removing the key, not by writing the default.
/// `Some(None)`: the operator writes the key ([`Edit::inverse`] says it all); `None`: `edit`
/// sets neither, or the text holds no such operator.
pub(crate) fn text_inverse(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    edit: &Edit,
) -> Option<Option<Edit>> {
    let (operator, param) = param_of(edit)?;
    let map = operator_map(nav, format, tk, operator).ok()?;
    let written = nav.own_entry(map, param.key()).is_some();
    Some((!written).then(|| Edit::ResetParam {
        operator: operator.clone(),
        param,
    }))
}

fn param_of(edit: &Edit) -> Option<(&String, OperatorParam)> {
    match edit {
        Edit::SetThreshold { operator, .. } => Some((operator, OperatorParam::Threshold)),
        Edit::SetHops { operator, .. } => Some((operator, OperatorParam::Hops)),
        _ => None,
    }
}

fn operator_map(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    operator: &str,
) -> Result<NodeId, EditError> {
    format
        .operator_item(nav, tk, operator)
        .map(|i| nav.doc.resolve(i))
        .ok_or_else(|| EditError::NotFound(format!("operator `{operator}`")))
}

/// Removes `key: value` from a mapping: its whole lines in a block mapping, with the comma
/// before it in a flow mapping. A missing key needs nothing.
fn remove_entry(nav: &Nav<'_, '_>, map: NodeId, key: &str) -> Result<Vec<Splice>, EditError> {
    let Value::Map(entries) = &nav.doc.node(map).value else {
        return Err(EditError::Unsupported(
            "the operator is not a mapping".into(),
        ));
    };
    let Some(i) = entries
        .iter()
        .rposition(|(k, _)| nav.doc.str(*k) == Some(key))
    else {
        return Ok(Vec::new());
    };
    let (k, v) = entries[i];
    let end = |id: NodeId| {
        let s = &nav.doc.node(id).span;
        patch::content_end(nav.text, s).max(s.start)
    };
    let key_start = nav.doc.node(k).span.start;
    if nav.doc.node(map).flow {
        let at = match i {
            0 if entries.len() > 1 => key_start..nav.doc.node(entries[1].0).span.start,
            0 => key_start..end(v),
            _ => end(entries[i - 1].1)..end(v),
        };
        return Ok(vec![Splice::new(at, "")]);
    }
    if entries.len() == 1 {
        return Err(EditError::Unsupported(format!(
            "`{key}` is the only key of its mapping"
        )));
    }
    let from = patch::line_start(nav.text, key_start);
    if !nav.text[from..key_start].trim().is_empty() {
        // The first key of a list item (`- hops: 3`): keep the dash line, cut to the next key.
        let next = nav.doc.node(entries[i + 1].0).span.start;
        return Ok(vec![Splice::new(key_start..next, "")]);
    }
    let to = patch::next_line(nav.text, end(v));
    Ok(vec![Splice::new(from..to, "")])
}
