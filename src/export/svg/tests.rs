use super::*;
use crate::model::{Node, NodeKind, Toolkit};
use crate::recommend::{Params, recommend, resolve_seeds};
use crate::source::load_example;

fn example_svg() -> (Toolkit, String) {
    let tk = load_example().toolkit;
    let op = tk
        .operators
        .first()
        .cloned()
        .expect("the example has operators");
    let (seeds, _) = resolve_seeds(&tk, &op.actions);
    let params = Params {
        threshold: op.threshold,
        hops: op.hops,
    };
    let rec = recommend(&tk, &seeds, params);
    let hl = Highlight {
        rec: &rec,
        threshold: params.threshold,
        seeds: &seeds,
    };
    let svg = to_svg(&tk, Some(&hl));
    (tk, svg)
}

/// Every opened element is closed, in order (a small check that the document is
/// well-formed without an XML crate).
fn balanced(svg: &str) -> bool {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let Some(end) = rest.find('>') else {
            return false;
        };
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop().as_deref() != Some(name.trim()) {
                return false;
            }
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap_or_default();
            stack.push(name.to_string());
        }
    }
    stack.is_empty()
}

#[test]
fn example_is_well_formed_and_names_every_node() {
    let (tk, svg) = example_svg();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(balanced(&svg), "unbalanced tags");
    for ix in tk.graph.node_indices() {
        let name = escape(tk.name(ix));
        let cut: String = name.chars().take(MAX_CHARS - 1).collect();
        assert!(svg.contains(&cut), "missing {name}");
    }
}

#[test]
fn highlight_classes_and_legend_are_present() {
    let (_, svg) = example_svg();
    for class in [
        "node action seed",
        "node action rec",
        "node tool rec",
        " dim\"",
        "edge call rec",
        "edge next below",
        "class=\"legend\"",
    ] {
        assert!(svg.contains(class), "missing {class}");
    }
    let tk = load_example().toolkit;
    let plain = to_svg(&tk, None);
    assert!(!plain.contains("action rec\"") && !plain.contains(" seed\""));
    assert!(balanced(&plain));
}

#[test]
fn hostile_names_are_escaped() {
    let mut tk = Toolkit::new();
    let a = tk.add_node(Node::new(NodeKind::Action, "a<b>&\"c'\u{1b}[31m"));
    let t = tk.add_node(Node::new(NodeKind::Tool, "</svg><script>x</script>"));
    tk.add_edge(a, t, 0.5, None);
    let svg = to_svg(&tk, None);
    assert!(balanced(&svg));
    assert!(!svg.contains("<script>"));
    assert!(!svg.contains('\u{1b}'));
    assert!(svg.contains("a&lt;b&gt;&amp;&quot;c&apos;^[[31m"));
}

#[test]
fn empty_toolkit_gives_a_document() {
    let svg = to_svg(&Toolkit::new(), None);
    assert!(balanced(&svg));
    assert!(svg.ends_with("</svg>\n"));
}
