//! `toolscope export --to svg` through the real binary.

use std::process::Command;

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/toolkits/graph-db.yaml").to_string()
}

fn export(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["export", &example(), "--to", "svg"])
        .args(args)
        .output()
        .expect("binary runs")
}

#[test]
fn export_svg_highlights_the_operator_recommendation() {
    let out = export(&["--operator", "query"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("class=\"node action seed\""));
    assert!(svg.contains("* query_intention"));
    assert!(svg.contains("+ CypherExecutor"));
    assert!(svg.contains("class=\"edge call rec\""));
    assert!(svg.contains("Legend - recommendation at threshold 0.70"));
}

#[test]
fn export_svg_to_a_file_without_seeds() {
    let dir = std::env::temp_dir().join(format!("toolscope-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("g.svg");
    let out = export(&["-o", file.to_str().expect("utf-8 path")]);
    assert!(out.status.success());
    let svg = std::fs::read_to_string(&file).expect("written");
    assert!(svg.contains("DocumentReader"));
    assert!(!svg.contains(" seed\""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 31: `export --to svg --traces F --replay RECORD STEP` draws a replayed step: the
/// step's offer, the called tool outlined as a hit or a miss, and the step in the title.
#[test]
fn a_replayed_step_is_drawn_with_its_call_marked() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let kit = format!("{dir}/tests/fixtures/replay/fs-kit.yaml");
    let runs = format!("{dir}/tests/fixtures/replay/fs-runs.jsonl");
    let export = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .arg("export")
            .arg(&kit)
            .args(["--traces", &runs])
            .args(args)
            .output()
            .expect("binary runs")
    };
    let svg_of = |record: &str, step: &str| {
        let o = export(&["--to", "svg", "--replay", record, step]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).expect("utf-8")
    };
    // The node whose <title> names `tool`, as its class list and the group's text.
    let node_of = |svg: &str, tool: &str| -> String {
        let at = svg
            .find(&format!("<title>{tool} (tool)"))
            .unwrap_or_else(|| panic!("{tool} is drawn:\n{svg}"));
        let open = svg[..at].rfind("<g class=\"").expect("its group");
        svg[open..at].to_string()
    };
    // Record 1 (`r1`), step 1: after `ls`, `cd` was offered and called.
    let hit = svg_of("r1", "1");
    assert!(node_of(&hit, "cd").contains("called-hit"), "{hit}");
    assert!(
        !hit.contains("called-miss\">"),
        "only the called tool is marked"
    );
    assert!(
        hit.contains("record 1, step 1 of 3: after ls, called cd: a hit"),
        "{hit}"
    );
    // Record 2, step 1: after `cd`, `mv` was called but kept out (its edge is 0.3 under
    // the threshold 0.35); it is drawn anyway, outlined as the miss.
    let miss = svg_of("2", "1");
    assert!(node_of(&miss, "mv").contains("called-miss"), "{miss}");
    assert!(!node_of(&miss, "mv").contains(" rec"), "{miss}");
    assert!(miss.contains("called mv: a miss"), "{miss}");
    // What cannot be drawn is refused with the reason.
    let o = export(&["--to", "svg", "--replay", "9", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no record 9"));
    let o = export(&["--to", "dot", "--replay", "1", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--to svg"));
}

/// Issue 44: the SVG of a replayed miss on the BFCL kit (`init` + `fit` on BFCL's training
/// runs; tests/fixtures/replay/README.md) is a picture of the step: the offer, the seeds,
/// at most five of the frontier and the missed call's path, about one edge per drawn node,
/// the blocking edge's score (or `hops`) as visible text and why in the title. The first
/// three misses after a first call (the TUI's `step_tests` replay the same ones); the
/// same for the kit learned from `gen` runs of 60 actions and 40 tools.
#[test]
fn the_bfcl_kits_misses_are_pictures_of_their_steps() {
    misses_are_pictures(
        "bfcl",
        &[("1", "5", "sort"), ("1", "9", "diff"), ("3", "9", "wc")],
    );
}

#[test]
fn the_gen_kits_misses_are_pictures_of_their_steps() {
    misses_are_pictures(
        "gen",
        &[("1", "1", "t35"), ("1", "2", "t8"), ("1", "5", "t25")],
    );
}

fn misses_are_pictures(name: &str, misses: &[(&str, &str, &str)]) {
    let dir = env!("CARGO_MANIFEST_DIR");
    let kit = format!("{dir}/tests/fixtures/replay/{name}-kit.yaml");
    let runs = format!("{dir}/tests/fixtures/replay/{name}-runs.jsonl");
    for &(record, step, called) in misses {
        let o = Command::new(env!("CARGO_BIN_EXE_toolscope"))
            .args(["export", &kit, "--traces", &runs, "--to", "svg", "--replay"])
            .args([record, step])
            .output()
            .expect("binary runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let svg = String::from_utf8(o.stdout).expect("utf-8");
        let at = format!("record {record}, step {step}");
        assert!(
            svg.contains(&format!("{at} of ")) && svg.contains(&format!("called {called}: a miss")),
            "{at}: the title says the run, step and miss"
        );
        let body = &svg[..svg.find("<g class=\"legend\"").expect("legend")];
        let classes: Vec<&str> = body
            .split("<g class=\"node ")
            .skip(1)
            .map(|g| &g[..g.find('"').unwrap_or(0)])
            .collect();
        let offered = classes.iter().filter(|c| c.ends_with(" rec")).count();
        let seeds = classes.iter().filter(|c| c.contains("seed")).count();
        let nodes = classes.len();
        let edges = body.matches("<g class=\"edge ").count();
        // The called tool's path: at most its action and the one before it (hops 1), the
        // tool; the frontier: at most five, each with its tool.
        assert!(
            nodes <= offered + seeds + 3 + 2 * 5,
            "{at}: {nodes} nodes for {offered} offered, {seeds} seeds"
        );
        assert!(edges <= nodes + 3, "{at}: {edges} edges for {nodes} nodes");
        assert!(
            classes.iter().any(|c| c.contains("called-miss")),
            "{at}: the miss is marked"
        );
        let blocking = body
            .split("<g class=\"edge ")
            .skip(1)
            .find(|g| g.contains("blocking\"><title>"))
            .unwrap_or_else(|| panic!("{at}: the blocking edge is drawn"));
        assert!(
            blocking.contains(">hops</text>") || blocking.contains("</text>"),
            "{at}: the blocking edge is labelled: {blocking}"
        );
    }
}
