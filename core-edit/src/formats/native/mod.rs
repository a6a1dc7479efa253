//! toolscope's own format (SPEC 3.1): `tools:`, `groups:`, `actions:` with their `tools`
//! and `next` references, `operators:`. Large files are edited and their saves proven in
//! the lines of the edited declaration (`window`).

pub(crate) mod edges;
pub(crate) mod edit;
pub(crate) mod load;
mod member;
mod restore;
pub(crate) mod window;

use super::FileFormat;
use crate::edit::doc::Nav;
use crate::edit::window::Window;
use crate::edit::{Edit, EditError, Patch};
use crate::formats::ctx::Ctx;
use crate::model::Toolkit;
use crate::source::yaml::{Doc, NodeId};
use crate::source::{Format, SourceFile};

pub(crate) struct Native;

/// The top-level keys that make a document one of toolscope's toolkits.
pub const TOOLKIT_KEYS: [&str; 4] = ["actions", "tools", "groups", "operators"];

/// Whether a document in toolscope's format holds a toolkit: an empty document, or a
/// mapping with none of [`TOOLKIT_KEYS`] (`x: 1`), does not. A top level that is not a
/// mapping is a shape error of its own (TS010), so it counts as one here.
pub fn holds_toolkit(doc: &Doc) -> bool {
    match doc.root {
        None => false,
        Some(root) if doc.map(root).is_none() => true,
        Some(root) => TOOLKIT_KEYS.iter().any(|k| doc.get(root, k).is_some()),
    }
}

impl FileFormat for Native {
    fn format(&self) -> Format {
        Format::Native
    }

    /// Any document not claimed by another format.
    fn detect(&self, _doc: &Doc) -> bool {
        true
    }

    fn load(&self, ctx: &mut Ctx<'_>) {
        load::load(ctx);
    }

    fn mcp_list(&self) -> &'static str {
        "groups"
    }

    /// A group is a server when it says so (or gives no type) and carries a transport.
    fn is_mcp_server(&self, doc: &Doc, item: NodeId) -> bool {
        crate::mcp::decl::text(doc, item, "type").is_none_or(|t| t == "MCP")
            && doc.get(item, "mcp_transport_config").is_some()
    }

    fn patch(&self, nav: &Nav<'_, '_>, tk: &Toolkit, edit: &Edit) -> Result<Patch, EditError> {
        restore::native_patch(nav, self, tk, edit).unwrap_or_else(|| edit::patch(nav, tk, edit))
    }

    fn operator_item(&self, nav: &Nav<'_, '_>, _tk: &Toolkit, operator: &str) -> Option<NodeId> {
        nav.decl("operators", operator, false)
    }

    fn patch_in_window(
        &self,
        edit: &Edit,
        file: &SourceFile,
        tk: &Toolkit,
    ) -> Option<(Patch, Window)> {
        window::patch_in_window(edit, file, tk)
    }

    fn text_inverse_in_window(
        &self,
        edit: &Edit,
        file: &SourceFile,
        tk: &Toolkit,
    ) -> Option<Option<Edit>> {
        window::text_inverse(edit, file, tk)
    }
}
