//! Chat2Graph's agentic config (SPEC 3.2), read as Chat2Graph's `AgenticService.load`
//! builds it: `tools:` entries (`type: MCP` ones are servers), actions, the `toolkit:`
//! chains flattened into one, experts' workflows and the leader as operators; tuning in
//! the operators' own mappings and a top-level `scores:` list.

mod chains;
pub mod edit;
pub(crate) mod load;
pub(crate) mod remove;
mod restore;
pub(crate) mod tools;

use super::FileFormat;
use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};
use crate::formats::ctx::Ctx;
use crate::model::Toolkit;
use crate::source::Format;
use crate::source::yaml::{Doc, NodeId};

pub(crate) struct Chat2Graph;

impl FileFormat for Chat2Graph {
    fn format(&self) -> Format {
        Format::Chat2Graph
    }

    /// A top-level `toolkit` whose value is a list of lists (the chains).
    fn detect(&self, doc: &Doc) -> bool {
        doc.root
            .and_then(|r| doc.get(r, "toolkit"))
            .and_then(|t| doc.seq(t))
            .is_some_and(|items| items.iter().all(|i| doc.seq(*i).is_some()))
    }

    fn load(&self, ctx: &mut Ctx<'_>) {
        load::load(ctx);
    }

    fn mcp_list(&self) -> &'static str {
        "tools"
    }

    /// Only `type: MCP` entries are servers.
    fn is_mcp_server(&self, doc: &Doc, item: NodeId) -> bool {
        crate::mcp::decl::text(doc, item, "type").as_deref() == Some("MCP")
    }

    fn patch(&self, nav: &Nav<'_, '_>, tk: &Toolkit, edit: &Edit) -> Result<Patch, EditError> {
        restore::c2g_patch(nav, self, tk, edit).unwrap_or_else(|| edit::patch(nav, tk, edit))
    }

    fn implied(&self, tk: &Toolkit, txn: &crate::edit::Transaction) -> Vec<(Edit, String)> {
        remove::leaves_uncalled(tk, txn)
            .into_iter()
            .map(|e| {
                let note = match &e {
                    Edit::RemoveNode { kind, name } => format!(
                        "{} `{name}` had no other caller: it leaves the graph, as Chat2Graph builds only what a chained action calls",
                        kind.as_str()
                    ),
                    other => other.describe(),
                };
                (e, note)
            })
            .collect()
    }

    /// An expert's operator by its `<expert>/<n>` name, or the leader.
    fn operator_item(&self, nav: &Nav<'_, '_>, tk: &Toolkit, operator: &str) -> Option<NodeId> {
        let name = tk.operator(operator).map_or(operator, |o| o.name.as_str());
        edit::operator_map(nav, name)
    }
}
