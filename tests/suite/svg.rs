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
