//! One edit + verify + save on a 100k-action native file. Ignored by default; run with
//! `cargo test --release --test writeback_perf -- --ignored --nocapture`.

use std::time::Instant;

use toolscope::edit::{Edit, Workspace};
use toolscope::synth::{GenOptions, generate};

#[test]
#[ignore = "measurement; run in release"]
fn edit_verify_save_100k_actions() {
    let text = generate(GenOptions {
        actions: 100_000,
        tools: None,
        seed: 1,
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    std::fs::write(&path, &text).unwrap();
    let t0 = Instant::now();
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).unwrap();
    let load = t0.elapsed();
    let tk = &ws.toolkit;
    let e = tk.graph.edge_indices().next_back().unwrap();
    let (u, v) = tk.graph.edge_endpoints(e).unwrap();
    let edit = Edit::SetScore {
        from: tk.name(u).to_string(),
        to: tk.name(v).to_string(),
        to_kind: tk.kind(v),
        score: 0.42,
    };
    let t1 = Instant::now();
    ws.apply(edit).unwrap();
    let apply = t1.elapsed();
    let t2 = Instant::now();
    ws.save_all().unwrap();
    let save = t2.elapsed();
    println!(
        "bytes: {}, load_ms: {:.1}, apply_ms: {:.1}, verify_and_save_ms: {:.1}, edit_total_ms: {:.1}",
        text.len(),
        load.as_secs_f64() * 1e3,
        apply.as_secs_f64() * 1e3,
        save.as_secs_f64() * 1e3,
        (apply + save).as_secs_f64() * 1e3
    );
    let back = Workspace::open(std::slice::from_ref(&path), None).unwrap();
    let t3 = Instant::now();
    assert_eq!(ws.toolkit.difference(&back.toolkit), None);
    println!("difference_ms: {:.1}", t3.elapsed().as_secs_f64() * 1e3);
}
