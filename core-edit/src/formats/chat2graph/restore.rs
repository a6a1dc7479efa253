//! A Chat2Graph config's text for the edits that put things back (see `formats::restore`).

use crate::edit::doc::Nav;
use crate::edit::{Edit, EditError, Patch};
use crate::model::{NodeKind, Toolkit};

use super::{edit as c2g, tools as c2g_tools};
use crate::formats::FileFormat;
use crate::formats::restore::reset;

/// A Chat2Graph config's patch for the edits this module writes; `None` for the others.
pub(crate) fn c2g_patch(
    nav: &Nav<'_, '_>,
    format: &dyn FileFormat,
    tk: &Toolkit,
    edit: &Edit,
) -> Option<Result<Patch, EditError>> {
    let splices = match edit {
        // A removal took the `tools:` entry out unless something else referred to it; a
        // local tool's entry is written again from its properties (all Chat2Graph reads of
        // it), an MCP server's cannot be (its `mcp_transport_config` is not in the graph).
        Edit::AddNode(node) if node.kind != NodeKind::Action => {
            let declared = nav
                .top_list("tools")
                .into_iter()
                .any(|t| nav.name_of(t) == Some(node.name.as_str()));
            let meta = node.meta.as_deref();
            let local = node.kind == NodeKind::Tool && meta.is_none_or(|m| m.ty == "LOCAL_TOOL");
            match declared || c2g::member(nav, &node.name).is_some() {
                true => Ok(Vec::new()),
                false if local => {
                    let module_path = meta.map_or("", |m| m.module_path.as_str());
                    c2g_tools::new_entry(nav, &node.name, &node.desc, module_path)
                        .map(|(s, _)| vec![s])
                }
                false => Err(EditError::Unsupported(format!(
                    "the `tools:` entry of {} `{}` is gone and its MCP settings with it; add it again in your editor",
                    node.kind.as_str(),
                    node.name
                ))),
            }
        }
        Edit::ResetParam { operator, param } => reset(nav, format, tk, operator, *param),
        Edit::AddNode(_)
        | Edit::AddMember { .. }
        | Edit::RemoveMember { .. }
        | Edit::AddSeed { .. }
        | Edit::RemoveSeed { .. } => Err(EditError::Unsupported(format!(
            "{}: a Chat2Graph config builds this from its `toolkit:` chains and workflows; edit those in your editor",
            edit.describe()
        ))),
        _ => return None,
    };
    Some(splices.map(Patch::from))
}
