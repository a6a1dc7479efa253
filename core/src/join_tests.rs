//! Joining files loaded through `load` (toolscope-base's `source::join`): references
//! across files and stand-ins.

use std::path::Path;

use crate::source::join::*;
use crate::source::{FileLoad, Limits};

fn load(name: &str, text: &str) -> FileLoad {
    crate::load::load_text(Path::new(name), text.to_string(), None, &Limits::default())
        .expect("loads")
}

#[test]
fn a_reference_into_another_file_is_an_edge_to_the_declared_action() {
    let mut loads = vec![
        load("one.yaml", "actions:\n  - name: a\n    next: [b]\n"),
        load("two.yaml", "actions:\n  - name: b\n    desc: B\n"),
    ];
    assert_eq!(loads[0].diagnostics.len(), 1, "TS030 alone");
    let mut parts: Vec<Part> = loads.iter_mut().map(Part::from).collect();
    link_across_files(&mut parts);
    assert!(loads[0].diagnostics.is_empty());
    let own = &loads[0].toolkit;
    let b = own.action("b").expect("stand-in");
    assert!(is_stand_in(own, b));
    let tk = merge_all(loads.into_iter().map(|f| f.toolkit));
    let (a, b) = (tk.action("a").expect("a"), tk.action("b").expect("b"));
    assert!(tk.edge(a, b).is_some());
    assert_eq!(tk.node(b).desc, "B", "the declared action took its place");
    assert!(!tk.node(b).implicit);
}

#[test]
fn a_stand_in_nobody_declares_is_dropped_when_merging() {
    let mut one = load("one.yaml", "actions:\n  - name: a\n    next: [b]\n");
    let unresolved = std::mem::take(&mut one.unresolved);
    link(&mut one.toolkit, &mut one.diagnostics, &unresolved, |_| {
        true
    });
    let tk = merge_all([one.toolkit]);
    assert!(tk.action("b").is_none());
    assert_eq!(tk.graph.edge_count(), 0);
}
