//! The toolkit file formats behind one interface ([`FileFormat`]): how a parsed document is
//! recognised, read into the graph, and written back to when the user edits. Everything
//! else (the YAML tree with positions, byte splices, verification, the workspace, undo,
//! saving) is shared, so a second framework's config format is one more implementation in
//! a folder of its own (`native/`, `chat2graph/`).
//!
//! Detection asks each format in [`FORMATS`] in turn; the native format, which takes any
//! mapping, comes last.

pub(crate) mod chat2graph;
pub(crate) mod native;

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};
use crate::model::Toolkit;
use crate::source::ctx::Ctx;
use crate::source::yaml::{Doc, NodeId};
use crate::source::{Format, SourceFile};

/// One file format.
pub(crate) trait FileFormat: Sync {
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
pub(crate) fn of(format: Format) -> &'static dyn FileFormat {
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
