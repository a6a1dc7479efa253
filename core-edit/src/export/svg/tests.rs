use super::*;
use crate::model::{Node, NodeKind, Toolkit};
use crate::recommend::{Params, recommend, resolve_seeds};
use crate::testing::load_example;

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
        assert!(
            svg.contains(&format!(" {name}</text>")),
            "missing {name} (whole)"
        );
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
    let text = crate::generate::generate(crate::generate::GenOptions {
        actions,
        tools: Some(tools),
        seed,
    });
    let tk = crate::testing::load_text(
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
        let d = drawing(&tk, Some(&hl), whole);
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
    // Each case routes two pictures of up to 70 nodes on the grid: few cases, small graphs.
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]
    /// Over random toolkits and queries: no edge segment passes through a box it does not
    /// belong to, in the focus picture and in the whole one, and every recommended node is
    /// drawn.
    #[test]
    fn no_edge_hides_under_a_box_and_the_recommendation_is_drawn(
        actions in 2usize..50,
        tools in 1usize..20,
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
    let tk = crate::testing::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit;
    for d in [
        layered_drawing(&tk, &Layout::compute(&tk)),
        drawing(&tk, None, true),
    ] {
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

/// Axis-parallel segments of a path, as (fixed coordinate, from, to, horizontal).
fn segments(p: &Path) -> Vec<(f64, f64, f64, bool)> {
    p.points
        .windows(2)
        .filter_map(|w| {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if (y0 - y1).abs() < 0.01 {
                Some((y0, x0.min(x1), x0.max(x1), true))
            } else if (x0 - x1).abs() < 0.01 {
                Some((x0, y0.min(y1), y0.max(y1), false))
            } else {
                None
            }
        })
        .collect()
}

/// Pairs of edges sharing neither source nor target whose paths run along the same line
/// for more than a crossing.
fn shared_runs(tk: &Toolkit, d: &Drawing) -> Vec<String> {
    let mut out = Vec::new();
    for (i, (a, pa)) in d.edges.iter().enumerate() {
        for (b, pb) in &d.edges[i + 1..] {
            let ((ua, va), (ub, vb)) = (
                tk.graph.edge_endpoints(*a).expect("edge"),
                tk.graph.edge_endpoints(*b).expect("edge"),
            );
            if ua == ub || va == vb {
                continue;
            }
            for sa in segments(pa) {
                for sb in segments(pb) {
                    let overlap = sa.2.min(sb.2) - sa.1.max(sb.1);
                    if sa.3 == sb.3 && (sa.0 - sb.0).abs() < 0.01 && overlap > 0.5 {
                        out.push(format!("{} / {}", tk.edge_label(*a), tk.edge_label(*b)));
                    }
                }
            }
        }
    }
    out
}

/// Every operator of the Chat2Graph-shaped fixtures, focus and whole: unrelated edges
/// never run together, no score label lies on another edge's line or a box.
#[test]
fn unrelated_edges_stay_apart_and_labels_clear_of_lines() {
    for file in [
        "../tests/fixtures/chat2graph-flat.yml",
        "../tests/fixtures/gaia-agents.yml",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let tk = crate::testing::load_paths(&[path], None)
            .expect("fixture loads")
            .toolkit;
        for op in &tk.operators {
            let (seeds, _) = resolve_seeds(&tk, &op.actions);
            let params = Params {
                threshold: op.threshold,
                hops: op.hops + 2,
            };
            let rec = recommend(&tk, &seeds, params);
            let hl = Highlight {
                rec: &rec,
                threshold: params.threshold,
                seeds: &seeds,
            };
            for whole in [false, true] {
                let d = drawing(&tk, Some(&hl), whole);
                let shared = shared_runs(&tk, &d);
                assert!(shared.is_empty(), "{file} {} {whole}: {shared:?}", op.name);
                for (e, p) in &d.edges {
                    let (lx, ly) = p.label;
                    if !lx.is_finite() {
                        continue;
                    }
                    let text = score_text(tk.graph[*e].score);
                    let hw = (text.len() as f64 * 6.2 + 4.0) / 2.0;
                    let r = (lx - hw, ly - 5.0, 2.0 * hw, 10.0);
                    for (other, q) in d.edges.iter().filter(|o| o.0 != *e) {
                        for w in q.points.windows(2) {
                            assert!(
                                !crosses(w[0], w[1], r),
                                "{file}: the label of {} lies on {}",
                                tk.edge_label(*e),
                                tk.edge_label(*other)
                            );
                        }
                    }
                    for (ix, b) in &d.boxes {
                        let inside = r.0 < b.0 + b.2
                            && b.0 < r.0 + r.2
                            && r.1 < b.1 + b.3
                            && b.1 < r.1 + r.3;
                        assert!(!inside, "{file}: a label lies on {}", tk.name(*ix));
                    }
                }
            }
        }
    }
}

/// The title names file, operator, threshold, hops and counts; names are whole; the
/// legend is never wider than the picture; the whole example is folded near 4:3.
#[test]
fn title_whole_names_legend_and_aspect() {
    let tk = load_example().toolkit;
    let op = tk.operators.first().cloned().expect("operators");
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
    let title = Title {
        file: "graph-db.yaml".into(),
        operator: Some(op.name.clone()),
        hops: Some(params.hops),
        called: None,
    };
    let svg = to_svg_titled(&tk, Some(&hl), false, &title);
    let want = format!(
        "graph-db.yaml \u{b7} operator {} \u{b7} threshold {} \u{b7} hops {} \u{b7} recommended {} of",
        escape(&op.name),
        score_text(params.threshold),
        params.hops,
        rec.actions.len()
    );
    assert!(svg.contains(&want), "no title line: {want}");
    let size = |svg: &str| -> (f64, f64) {
        let num = |key: &str| {
            let at = svg.find(key).expect(key) + key.len();
            let end = svg[at..].find('"').expect("quote");
            svg[at..at + end].parse::<f64>().expect("number")
        };
        (num(" width=\""), num(" height=\""))
    };
    let (w, _) = size(&svg);
    assert!(w >= LEGEND_W + 2.0 * MARGIN, "the legend fits: {w}");
    let whole = to_svg_whole(&tk, Some(&hl));
    let (w, h) = size(&whole);
    let ratio = w / h;
    assert!((0.75..2.5).contains(&ratio), "whole is {w}x{h}");
    // A name longer than the old 36-character cut, within MAX_LABEL, is drawn whole; a
    // longer one is cut with `…` (its tooltip keeps it whole).
    let mut long = Toolkit::new();
    let name = "an action whose name runs past thirty-six characters";
    assert!(name.len() > 36 && name.len() <= MAX_LABEL);
    long.add_node(Node::new(NodeKind::Action, name));
    assert!(to_svg(&long, None).contains(&format!("  {name}</text>")));
    let mut longer = Toolkit::new();
    let name = "n".repeat(MAX_LABEL + 10);
    longer.add_node(Node::new(NodeKind::Action, name.as_str()));
    let svg = to_svg(&longer, None);
    assert!(!svg.contains(&format!("  {name}</text>")) && svg.contains("…</text>"));
}

/// A replayed miss on a learned kit (every action leads to most others) is drawn as the
/// reasons for its offer: the offer, the seeds, the called tool's path and five of the
/// frontier, about one edge per node, the blocking score as text and the miss in the title.
#[test]
fn a_replayed_step_of_a_learned_kit_is_a_tree_with_its_miss() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/replay/learned-kit.yaml");
    let tk = crate::testing::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit;
    let seeds = vec![tk.action("call t28").expect("seed")];
    let params = Params {
        threshold: 0.2,
        hops: 1,
    };
    let rec = recommend(&tk, &seeds, params);
    let called = tk.find(NodeKind::Tool, "t8").expect("t8");
    assert!(!rec.contains(called));
    let hl = Highlight {
        rec: &rec,
        threshold: params.threshold,
        seeds: &seeds,
    };
    let title = Title {
        file: "learned-kit.yaml".into(),
        operator: Some("op1".into()),
        hops: Some(params.hops),
        called: Some(Called {
            node: Some(called),
            hit: false,
            caption: "record 4, step 2 of 5: after t28, called t8: a miss".into(),
        }),
    };
    let svg = to_svg_titled(&tk, Some(&hl), false, &title);
    assert!(balanced(&svg));
    let body = &svg[..svg.find("<g class=\"legend\"").expect("legend")];
    let nodes = body.matches("<g class=\"node ").count();
    let edges = body.matches("<g class=\"edge ").count();
    let all_edges = rec
        .actions
        .iter()
        .chain(&rec.tools)
        .flat_map(|&u| tk.out_edges(u))
        .filter(|&(_, v)| rec.contains(v))
        .count();
    let r = crate::layout::step::Reasons::of(&tk, &seeds, params, &rec, Some(called));
    let c = r.called.as_ref().expect("called");
    let k = c.keeping.expect("kept out");
    // The offer, its seeds, the called tool's path and at most five of the frontier.
    let path_nodes = c.path.len();
    assert!(nodes > rec.len(), "{nodes} nodes");
    assert!(nodes <= rec.len() + path_nodes + 5, "{nodes} nodes");
    // About one edge per node: the tree, the called path, one into each frontier node.
    assert!(
        edges <= nodes + path_nodes,
        "{edges} edges for {nodes} nodes"
    );
    // The members have more edges among them than nodes (the knot); a tree is drawn.
    assert!(all_edges > rec.len(), "{all_edges} edges among the members");
    let tree = body.matches(" rec\"><title>").count();
    assert!(tree < rec.len() + path_nodes, "{tree} of {all_edges} drawn");
    // The miss is marked and what keeps it out is visible text, in the title too.
    assert!(svg.contains("called-miss"));
    let label = if k.by_hops {
        "hops".to_string()
    } else {
        score_text(k.step.score)
    };
    let blocking = body
        .split("<g class=\"edge ")
        .skip(1)
        .find(|g| g.contains("blocking\"><title>"))
        .expect("the blocking edge is drawn");
    assert!(blocking.contains(&format!(">{label}</text>")), "{blocking}");
    assert!(svg.contains("called t8: a miss: "), "the title says why");
}
