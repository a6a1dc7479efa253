//! The incremental reread of a file changed on disk: when the change lies in the lines of
//! one item of `actions:` or `tools:` and is provably local (the conditions of the save's
//! windowed proof, `window_proof`), the node is re-read from those lines instead of
//! loading the whole file again.

use std::path::Path;

use crate::diag::Diagnostic;
use crate::model::{NodeKind, Origin, Toolkit};

use super::window_proof::{Sig, declared, kind_of, read_alone, shape_kept, shifted_diags, sig};

/// A change on disk re-read in one item's window: the node's new description, tool
/// properties and edge scores (the same edges), with the file's new diagnostics.
#[derive(Debug)]
pub(crate) struct Reread {
    kind: NodeKind,
    name: String,
    sig: Sig,
    /// Origins of the node's edges (in `sig.edges` order), in whole-file lines.
    origins: Vec<Origin>,
    pub diags: Vec<Diagnostic>,
}

/// Re-reads a file changed on disk from `old` to `new` when the change lies in the lines
/// of one item of `actions:` or `tools:` and is provably local (the conditions of
/// [`prove`](super::window_proof::prove), with the old graph `own` standing for the expected one), keeps the number of
/// lines, and changes no edge but its score. `None`: load the whole file.
pub(crate) fn reread(
    path: &Path,
    old: &str,
    new: &str,
    own: &Toolkit,
    diags: &[Diagnostic],
) -> Option<Reread> {
    let bom = crate::source::bom_len(old);
    if bom != crate::source::bom_len(new) || old == new {
        return None;
    }
    let (ob, nb) = (&old[bom..], &new[bom..]);
    let pre = super::common_prefix(ob.as_bytes(), nb.as_bytes());
    let max_suf = ob.len().min(nb.len()) - pre;
    let suf = super::common_suffix(ob.as_bytes(), nb.as_bytes(), max_suf);
    let old_end = ob.len() - suf;
    let line = 1 + ob.as_bytes()[..pre].iter().filter(|b| **b == b'\n').count() as u32;
    // The declaration starting last at or before the changed line.
    let (kind, name, origin) = own
        .graph
        .node_indices()
        .map(|ix| own.node(ix))
        .filter(|n| !n.implicit && n.kind != NodeKind::Group)
        .filter_map(|n| n.origin.map(|o| (n.kind, &n.name, o)))
        .filter(|(_, _, o)| o.file == 0 && o.line <= line)
        .max_by_key(|(_, _, o)| o.line)?;
    let range = crate::edit::window::declaration_lines(ob, origin)?;
    if pre < range.start || old_end > range.end {
        return None;
    }
    let new_end = (range.end + nb.len()).checked_sub(ob.len())?;
    let (old_cut, new_cut) = (ob.get(range.clone())?, nb.get(range.start..new_end)?);
    let col = origin.col as usize - 1;
    let lines = |s: &str| s.matches('\n').count();
    if lines(old_cut) != lines(new_cut) || !shape_kept(old_cut, new_cut, col) {
        return None;
    }
    let list = if kind == NodeKind::Action {
        "actions"
    } else {
        "tools"
    };
    let (old_sig, old_diags, _) = read_alone(path, list, old_cut, kind, name)?;
    let (new_sig, new_diags, origins) = read_alone(path, list, new_cut, kind, name)?;
    let same_edges = old_sig.edges.len() == new_sig.edges.len()
        && old_sig
            .edges
            .iter()
            .zip(&new_sig.edges)
            .all(|(a, b)| a.0 == b.0 && a.1.0 == b.1.0);
    if !same_edges
        || Some(&old_sig) != sig(own, kind, name).as_ref()
        || !old_sig.edges.iter().all(|((k, n), _)| declared(own, k, n))
    {
        return None;
    }
    let diags = shifted_diags(origin.line, old_cut, new_cut, diags, &old_diags, new_diags)?;
    let origins = origins
        .into_iter()
        .map(|o| Origin {
            file: 0,
            line: o.line + origin.line - 2,
            col: o.col,
        })
        .collect();
    Some(Reread {
        kind,
        name: name.clone(),
        sig: new_sig,
        origins,
        diags,
    })
}

impl Reread {
    /// Whether [`Reread::apply`] finds the node and every edge in `tk`.
    pub fn applies(&self, tk: &Toolkit) -> bool {
        let Some(a) = tk.find(self.kind, &self.name) else {
            return false;
        };
        self.sig.edges.iter().all(|((k, n), _)| {
            tk.find(kind_of(k), n)
                .is_some_and(|b| tk.edge(a, b).is_some())
        })
    }

    /// Makes the change in a graph holding the node (the file's own, or the merged one when
    /// the file is the only one: `file` is its index there); check [`Reread::applies`]
    /// first, so nothing is changed half-way.
    pub fn apply(&self, tk: &mut Toolkit, file: u32) {
        let Some(a) = tk.find(self.kind, &self.name) else {
            return;
        };
        let node = tk.node_mut(a);
        node.desc.clone_from(&self.sig.desc);
        node.meta.clone_from(&self.sig.meta);
        for (((k, n), (_, bits)), origin) in self.sig.edges.iter().zip(&self.origins) {
            let Some(e) = tk.find(kind_of(k), n).and_then(|b| tk.edge(a, b)) else {
                continue;
            };
            let edge = &mut tk.graph[e];
            edge.score = f64::from_bits(*bits);
            edge.origin = Some(Origin { file, ..*origin });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenOptions, generate};
    use crate::source::Limits;

    #[test]
    fn a_description_changed_on_disk_is_reread_in_its_window() {
        let old = generate(GenOptions {
            actions: 30,
            tools: Some(12),
            seed: 5,
        });
        let new = old.replacen("Synthetic action 3.", "Changed action 3.", 1);
        let path = Path::new("g.yaml");
        let load = crate::load::load_text(path, old.clone(), None, &Limits::default()).unwrap();
        let r = reread(path, &old, &new, &load.toolkit, &load.diagnostics);
        let r = r.expect("reread");
        assert_eq!(r.sig.desc, "Changed action 3.");
    }
}
