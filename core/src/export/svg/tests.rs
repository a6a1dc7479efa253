use super::*;
use crate::model::{Node, NodeKind, Toolkit};
use crate::recommend::{Params, recommend, resolve_seeds};
use crate::source::load_example;

fn example_svg() -> (Toolkit, String) {
    example_svg_as(false)
}

/// The example with its first operator's recommendation: focus view, or the whole graph.
fn example_svg_as(whole: bool) -> (Toolkit, String) {
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
    let svg = if whole {
        to_svg_whole(&tk, Some(&hl))
    } else {
        to_svg(&tk, Some(&hl))
    };
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
    let (tk, svg) = example_svg_as(true);
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

/// A generated toolkit, a random query on it, and both pictures' drawings.
fn random_case(actions: usize, tools: usize, seed: u64, picks: &[usize], t: f64, hops: u32) {
    let text = crate::synth::generate(crate::synth::GenOptions {
        actions,
        tools: Some(tools),
        seed,
    });
    let tk = crate::source::load_text(
        std::path::Path::new("gen.yaml"),
        text,
        None,
        &crate::source::Limits::default(),
    )
    .expect("generated toolkit loads")
    .toolkit;
    let acts: Vec<NodeIndex> = tk.nodes_of(NodeKind::Action).collect();
    let seeds: Vec<NodeIndex> = picks.iter().map(|&p| acts[p % acts.len()]).collect();
    let params = Params { threshold: t, hops };
    let rec = recommend(&tk, &seeds, params);
    let hl = Highlight {
        rec: &rec,
        threshold: t,
        seeds: &seeds,
    };
    for whole in [false, true] {
        let layout = picture_layout(&tk, Some(&hl), whole);
        let d = drawing(&tk, &layout);
        for ix in rec.actions.iter().chain(&rec.tools) {
            assert!(
                d.boxes.iter().any(|b| b.0 == *ix),
                "{} not drawn (whole: {whole})",
                tk.name(*ix)
            );
        }
        for (e, path) in &d.edges {
            let (u, v) = tk.graph.edge_endpoints(*e).expect("edge");
            for seg in path.points.windows(2) {
                for (ix, r) in &d.boxes {
                    if *ix == u || *ix == v {
                        continue;
                    }
                    assert!(
                        !crosses(seg[0], seg[1], *r),
                        "{} passes under {} (whole: {whole}): {seg:?} {r:?}",
                        tk.edge_label(*e),
                        tk.name(*ix)
                    );
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Over random toolkits and queries: no edge segment passes through a box it does not
    /// belong to, in the focus picture and in the whole one, and every recommended node is
    /// drawn.
    #[test]
    fn no_edge_hides_under_a_box_and_the_recommendation_is_drawn(
        actions in 2usize..60,
        tools in 1usize..25,
        seed in 0u64..1000,
        picks in proptest::collection::vec(0usize..1000, 1..4),
        t in 0.0f64..1.0,
        hops in 0u32..4,
    ) {
        random_case(actions, tools, seed, &picks, t, hops);
    }
}

/// The failure the issue reports: `web_browsing -> BrowserUsing` ran under another box.
#[test]
fn fixture_edges_avoid_boxes_in_both_pictures() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chat2graph-flat.yml");
    let tk = crate::source::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit;
    for layout in [Layout::compute(&tk)] {
        let d = drawing(&tk, &layout);
        for (e, p) in &d.edges {
            let (u, v) = tk.graph.edge_endpoints(*e).expect("edge");
            for seg in p.points.windows(2) {
                for (ix, r) in d.boxes.iter().filter(|b| b.0 != u && b.0 != v) {
                    assert!(
                        !crosses(seg[0], seg[1], *r),
                        "{} under {}",
                        tk.edge_label(*e),
                        tk.name(*ix)
                    );
                }
            }
        }
    }
}

#[test]
fn with_seeds_the_picture_is_the_focus_view_and_whole_keeps_everything() {
    let (tk, focus) = example_svg();
    let op = tk.operators.first().cloned().expect("operators");
    let (seeds, _) = resolve_seeds(&tk, &op.actions);
    let rec = recommend(
        &tk,
        &seeds,
        Params {
            threshold: op.threshold,
            hops: op.hops,
        },
    );
    let hl = Highlight {
        rec: &rec,
        threshold: op.threshold,
        seeds: &seeds,
    };
    let whole = picture_layout(&tk, Some(&hl), true).placed().count();
    let shown = picture_layout(&tk, Some(&hl), false).placed().count();
    assert_eq!(whole, tk.graph.node_count());
    assert!(shown < whole, "the focus view leaves nodes out");
    assert!(shown > rec.len(), "the frontier is drawn too");
    assert!(balanced(&focus));
    let outside = tk
        .graph
        .node_indices()
        .find(|&ix| picture_layout(&tk, Some(&hl), false).slot(ix).is_none())
        .expect("a node outside the focus");
    let name = format!(">  {}<", escape(tk.name(outside)));
    assert!(!focus.contains(&name), "{name} drawn in the focus picture");
}

#[test]
fn crossing_is_through_the_interior_only() {
    let r = (40.0, 0.0, 10.0, 10.0);
    assert!(crosses((0.0, 5.0), (100.0, 5.0), r));
    assert!(crosses((45.0, -20.0), (45.0, 2.0), r));
    assert!(!crosses((0.0, 10.0), (100.0, 10.0), r), "along the border");
    assert!(!crosses((0.0, 5.0), (40.0, 5.0), r), "up to the side");
}
