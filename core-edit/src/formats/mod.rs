//! The toolkit file formats behind one interface ([`FileFormat`]): how a parsed document is
//! recognised, read into the graph, and written back to when the user edits. Everything
//! else (the YAML tree with positions, byte splices, verification, the workspace, undo,
//! saving) is shared, so a second framework's config format is one more implementation in
//! a folder of its own (`native/`, `chat2graph/`).
//!
//! Detection asks each format in [`FORMATS`] in turn; the native format, which takes any
//! mapping, comes last.

pub mod chat2graph;
pub mod ctx;
pub mod native;
pub(crate) mod restore;

pub use chat2graph::tools::check_module_path;

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};
use crate::edit::{doc, unchanged};
use crate::formats::ctx::Ctx;
use crate::model::Toolkit;
use crate::source::patch;
use crate::source::yaml::{self, Doc, NodeId};
use crate::source::{Format, Limits, SourceFile};

/// One file format.
pub trait FileFormat: Sync {
    /// Which format this is.
    fn format(&self) -> Format;

    /// Whether a parsed document is written in this format.
    fn detect(&self, doc: &Doc) -> bool;

    /// Builds the graph of `ctx.doc` into `ctx.toolkit`, reporting problems as diagnostics.
    fn load(&self, ctx: &mut Ctx<'_>);

    /// The top-level list whose entries declare MCP servers, and whether `item` of it is one.
    fn mcp_list(&self) -> &'static str;
    fn is_mcp_server(&self, doc: &Doc, item: NodeId) -> bool;

    /// The byte splices that make `edit` in the file whose tree `nav` reads and whose own
    /// graph is `tk` (before the edit).
    fn patch(&self, nav: &Nav<'_, '_>, tk: &Toolkit, edit: &Edit) -> Result<Patch, EditError>;

    /// Edits the format implies when `txn` is made on a file whose graph is `tk`, each with
    /// a note saying why (Chat2Graph builds only the tools a chained action calls, so a
    /// tool left with no caller leaves the graph).
    fn implied(&self, _tk: &Toolkit, _txn: &crate::edit::Transaction) -> Vec<(Edit, String)> {
        Vec::new()
    }

    /// The mapping an operator's threshold and hops are written in.
    fn operator_item(&self, nav: &Nav<'_, '_>, tk: &Toolkit, operator: &str) -> Option<NodeId>;

    /// The patch of `edit` made in the lines of the one declaration it changes, with that
    /// window, when the format can prove a large file's save from those lines alone (see
    /// `edit::window`); `None` makes the whole-file path do it.
    fn patch_in_window(
        &self,
        _edit: &Edit,
        _file: &SourceFile,
        _tk: &Toolkit,
    ) -> Option<(Patch, crate::edit::window::Window)> {
        None
    }

    /// The text inverse of a threshold or hops edit, found in the operator's lines only
    /// (see [`FileFormat::patch_in_window`]).
    fn text_inverse_in_window(
        &self,
        _edit: &Edit,
        _file: &SourceFile,
        _tk: &Toolkit,
    ) -> Option<Option<Edit>> {
        None
    }
}

/// Every format, in the order detection asks them.
static FORMATS: [&dyn FileFormat; 2] = [&chat2graph::Chat2Graph, &native::Native];

/// The implementation of `format`.
pub fn of(format: Format) -> &'static dyn FileFormat {
    match format {
        Format::Native => &native::Native,
        Format::Chat2Graph => &chat2graph::Chat2Graph,
    }
}

/// The format a parsed document is written in.
pub fn detect(doc: &Doc) -> Format {
    FORMATS
        .iter()
        .find(|f| f.detect(doc))
        .map_or(Format::Native, |f| f.format())
}

/// The splices that make `edit` in `file`, whose current graph is `tk` (the graph of this
/// file alone, before the edit), in the file's format. A file up to `check_bytes` is parsed
/// once more to prove the bytes outside the edit unchanged
/// ([`Limits::verify_each_edit_bytes`]).
pub fn patch(
    edit: &Edit,
    file: &SourceFile,
    tk: &Toolkit,
    check_bytes: usize,
) -> Result<Patch, EditError> {
    let body = crate::source::strip_bom(&file.text);
    let parsed =
        yaml::parse(body, &Limits::default()).map_err(|e| EditError::Parse(e.to_string()))?;
    let nav = doc::Nav::new(body, &parsed, false);
    let mut out = of(file.format).patch(&nav, tk, edit)?;
    out.notes.extend(nav.notes.take());
    // Everything the file says outside the edited construct must stay. One more parse
    // (of the new text): done up to the size verified on every edit; larger files rely
    // on the patchers' own checks and the graph verification before writing.
    if body.len() <= check_bytes {
        let (new, _) = patch::apply(body, &out.splices, 0).map_err(EditError::Unsupported)?;
        unchanged::same_outside_doc(&parsed, body, &out.splices, &new)
            .map_err(|m| EditError::Unsupported(format!("the edit is refused: {m}")))?;
    }
    Ok(out)
}

/// The undo of `edit` when the file's text says more than the graph (a threshold or hops
/// the operator did not write is undone by removing the key); `None` when
/// [`Edit::inverse`] says it all.
pub fn text_inverse(file: &SourceFile, tk: &Toolkit, edit: &Edit) -> Option<Edit> {
    if !matches!(edit, Edit::SetThreshold { .. } | Edit::SetHops { .. }) {
        return None;
    }
    let body = crate::source::strip_bom(&file.text);
    let parsed = yaml::parse(body, &Limits::default()).ok()?;
    let nav = doc::Nav::new(body, &parsed, false);
    restore::text_inverse(&nav, of(file.format), tk, edit).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_found_by_its_own_name() {
        for f in FORMATS {
            assert_eq!(of(f.format()).format(), f.format());
        }
        assert_eq!(FORMATS.last().map(|f| f.format()), Some(Format::Native));
    }

    #[test]
    fn a_chain_list_means_chat2graph_and_anything_else_native() {
        let limits = crate::source::Limits::default();
        let c2g = crate::source::yaml::parse("toolkit:\n  - [a, b]\n", &limits).expect("parses");
        assert_eq!(detect(&c2g), Format::Chat2Graph);
        let native =
            crate::source::yaml::parse("toolkit: [a]\nactions: []\n", &limits).expect("parses");
        assert_eq!(detect(&native), Format::Native);
    }
}
