//! Chat2Graph `Next` edges, added or removed. Chat2Graph flattens every `toolkit:` chain, in
//! order, into one chain and joins each action to the one after it there, across chain
//! boundaries too (SPEC 3.2). So an edge comes and goes only with an action's place in that
//! chain, and a change of a place usually adds or drops its neighbours' edges as well. The
//! nearest change (a new chain at the end to add an edge, one place taken out to remove
//! one) is made when it changes exactly that edge; otherwise the refusal names the edges it
//! would also add or drop, so the user can decide to make it in an editor.

use std::collections::BTreeSet;

use crate::model::{EdgeKind, Toolkit};
use crate::source::patch::Splice;
use crate::source::yaml::NodeId;

use crate::edit::EditError;
use crate::edit::doc::Nav;

/// One place of the flattened chain: the action, its chain (from 1), its line, and where
/// the item is (the chain's list and the item's index in it).
struct Place {
    name: String,
    chain: usize,
    line: u32,
    list: NodeId,
    index: usize,
}

/// The flattened chain as Chat2Graph reads it: chain items that are mappings naming an
/// action of the `actions:` list, in order.
fn flattened(nav: &Nav<'_, '_>) -> Vec<Place> {
    let actions: BTreeSet<&str> = nav
        .top_list("actions")
        .into_iter()
        .filter(|a| nav.doc.map(*a).is_some())
        .filter_map(|a| nav.name_of(a))
        .collect();
    let mut out = Vec::new();
    for (n, chain) in nav.top_list("toolkit").into_iter().enumerate() {
        for (index, item) in nav.doc.seq(chain).unwrap_or_default().iter().enumerate() {
            let name = match nav.doc.map(*item) {
                Some(_) => nav.name_of(*item),
                None => None,
            };
            if let Some(name) = name.filter(|n| actions.contains(n)) {
                out.push(Place {
                    name: name.to_string(),
                    chain: n + 1,
                    line: nav.doc.node(*item).line,
                    list: nav.doc.resolve(chain),
                    index,
                });
            }
        }
    }
    out
}

/// The `Next` edges a flattened chain gives.
fn edges(names: &[&str]) -> BTreeSet<(String, String)> {
    names
        .windows(2)
        .map(|w| (w[0].to_string(), w[1].to_string()))
        .collect()
}

fn list(edges: &BTreeSet<(String, String)>) -> String {
    let shown: Vec<String> = edges.iter().map(|(a, b)| format!("`{a} -> {b}`")).collect();
    shown.join(", ")
}

/// What changes besides `wanted` when the flattened chain `before` becomes `after`.
fn side_effects(before: &[&str], after: &[&str], wanted: &(String, String)) -> String {
    let (old, new) = (edges(before), edges(after));
    let mut parts = Vec::new();
    let added: BTreeSet<_> = new
        .difference(&old)
        .filter(|e| *e != wanted)
        .cloned()
        .collect();
    let dropped: BTreeSet<_> = old
        .difference(&new)
        .filter(|e| *e != wanted)
        .cloned()
        .collect();
    if !added.is_empty() {
        parts.push(format!("add {}", list(&added)));
    }
    if !dropped.is_empty() {
        parts.push(format!("drop {}", list(&dropped)));
    }
    for gone in before.iter().filter(|a| !after.contains(a)) {
        let part = format!("take `{gone}` out of the graph");
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    parts.join(" and ")
}

/// Removes a place from its chain, or the whole chain when it is its only item.
fn take_out(nav: &Nav<'_, '_>, p: &Place) -> Result<Vec<Splice>, EditError> {
    let alone = nav.doc.seq(p.list).is_some_and(|s| s.len() == 1);
    let toolkit = nav
        .root()
        .and_then(|r| nav.doc.get(r, "toolkit"))
        .map(|l| nav.doc.resolve(l));
    match toolkit {
        Some(list) if alone && nav.doc.seq(list).is_some_and(|s| s.len() > 1) => {
            nav.remove_items(list, &[p.chain - 1])
        }
        _ => nav.remove_items(p.list, &[p.index]),
    }
}

/// Whether Chat2Graph would build `action`'s tools once more for one more place.
fn has_tools(tk: &Toolkit, action: &str) -> bool {
    tk.action(action).is_some_and(|a| {
        tk.out_edges(a)
            .any(|(e, _)| tk.graph[e].kind == EdgeKind::Call)
    })
}

/// Adds `from -> to` as a new chain `[from, to]` (or `[to]` after a flattened chain ending
/// with `from`) at the end of `toolkit:`, when that adds no other edge and builds no tools
/// twice; else says what it would also do.
pub(crate) fn add_next(
    nav: &Nav<'_, '_>,
    tk: &Toolkit,
    from: &str,
    to: &str,
) -> Result<Vec<Splice>, EditError> {
    let places = flattened(nav);
    let before: Vec<&str> = places.iter().map(|p| p.name.as_str()).collect();
    let chain: Vec<&str> = match before.last() == Some(&from) {
        true => vec![to],
        false => vec![from, to],
    };
    let after: Vec<&str> = before
        .iter()
        .copied()
        .chain(chain.iter().copied())
        .collect();
    let mut also = side_effects(&before, &after, &(from.to_string(), to.to_string()));
    let built: Vec<String> = chain
        .iter()
        .filter(|a| has_tools(tk, a))
        .map(|a| format!("`{a}`"))
        .collect();
    if !built.is_empty() {
        if !also.is_empty() {
            also.push_str(" and ");
        }
        also.push_str(&format!(
            "build the tools of {} a second time (Chat2Graph then offers them twice)",
            built.join(" and ")
        ));
    }
    let chain_text = chain.join(", ");
    let refuse = |why: String| {
        EditError::Unsupported(format!(
            "add edge {from} -> {to}: Chat2Graph joins only neighbours in its `toolkit:` chains, flattened into one (each chain's last action is joined to the next chain's first), so `{to}` must come right after `{from}`; a new chain `[{chain_text}]` at the end {why}"
        ))
    };
    if !also.is_empty() {
        return Err(refuse(format!(
            "would also {also}; edit the chains in your editor if that is what you want"
        )));
    }
    let mut items = Vec::new();
    for name in &chain {
        let anchor = nav
            .decl("actions", name, true)
            .and_then(|a| nav.doc.anchor_name(a));
        match anchor {
            Some(a) => items.push(format!("*{a}")),
            None => {
                return Err(refuse(format!(
                    "would give exactly this edge, but `{name}` has no anchor to name it by; add the chain in your editor"
                )));
            }
        }
    }
    let toolkit = nav
        .root()
        .and_then(|r| nav.doc.get(r, "toolkit"))
        .map(|l| nav.doc.resolve(l))
        .ok_or_else(|| refuse("would give it, but there is no `toolkit:` list".into()))?;
    Ok(vec![nav.append_item(
        toolkit,
        &format!("[{}]", items.join(", ")),
    )?])
}

/// Removes `from -> to` by taking `to` (or `from`) out of the place where the flattening
/// joins them, when that changes no other edge and leaves both actions in the graph; else
/// says where they are joined and what the nearest change would also do.
pub(crate) fn remove_next(
    nav: &Nav<'_, '_>,
    from: &str,
    to: &str,
) -> Result<Vec<Splice>, EditError> {
    let places = flattened(nav);
    let before: Vec<&str> = places.iter().map(|p| p.name.as_str()).collect();
    let Some(i) = before.windows(2).position(|w| w == [from, to]) else {
        return Err(EditError::Unsupported(format!(
            "remove edge {from} -> {to}: it comes from the `toolkit:` chains, which do not put `{to}` right after `{from}` as written; edit them in your editor"
        )));
    };
    let (a, b) = (&places[i], &places[i + 1]);
    let place = if a.chain == b.chain {
        format!(
            "`{to}` follows `{from}` in chain {} (line {})",
            b.chain, b.line
        )
    } else {
        format!(
            "`{from}` ends chain {} and `{to}` starts chain {} (line {}), and Chat2Graph joins each chain to the next",
            a.chain, b.chain, b.line
        )
    };
    let others = before.windows(2).filter(|w| *w == [from, to]).count() - 1;
    let wanted = (from.to_string(), to.to_string());
    let without = |k: usize| -> Vec<&str> {
        let mut v = before.clone();
        v.remove(k);
        v
    };
    // The place whose removal changes the fewest other edges.
    let (p, also) = [(b, without(i + 1)), (a, without(i))]
        .into_iter()
        .map(|(p, after)| (p, side_effects(&before, &after, &wanted)))
        .min_by_key(|(_, also)| also.len())
        .unwrap_or((b, String::new()));
    if others == 0 && also.is_empty() {
        return take_out(nav, p);
    }
    let nearest = match others {
        0 => format!(
            "taking `{}` out of chain {} (line {}) would also {also}",
            p.name, p.chain, p.line
        ),
        n => format!(
            "{n} more place{} join{} them too, and each would have to change",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" }
        ),
    };
    Err(EditError::Unsupported(format!(
        "remove edge {from} -> {to}: Chat2Graph flattens the `toolkit:` chains into one and keeps this edge while {place}; {nearest}; edit the chains in your editor if that is what you want"
    )))
}
