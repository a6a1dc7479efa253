//! toolscope's own format (SPEC 3.1): `tools:`, `groups:`, `actions:` with their `tools`
//! and `next` references, `operators:`. Large files are edited and their saves proven in
//! the lines of the edited declaration (`edit::window`).

pub(crate) mod edges;
pub(crate) mod edit;
pub(crate) mod load;
mod member;
#[cfg(test)]
mod member_tests;

use super::FileFormat;
use crate::edit::doc::Nav;
use crate::edit::window::Window;
use crate::edit::{Edit, EditError, Patch};
use crate::model::Toolkit;
use crate::source::ctx::Ctx;
use crate::source::yaml::{Doc, NodeId};
use crate::source::{Format, SourceFile};

pub(crate) struct Native;

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
        crate::edit::restore::native_patch(nav, self, tk, edit)
            .unwrap_or_else(|| edit::patch(nav, tk, edit))
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
        crate::edit::window::patch_in_window(edit, file, tk)
    }

    fn text_inverse_in_window(
        &self,
        edit: &Edit,
        file: &SourceFile,
        tk: &Toolkit,
    ) -> Option<Option<Edit>> {
        crate::edit::window::text_inverse(edit, file, tk)
    }
}
