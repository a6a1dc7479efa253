//! Core benchmarks: loading both formats and recommending, at 1k, 10k and 100k actions.
//! Toolkits come from `toolscope_core::generate`, the generator behind `toolscope gen`.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolscope_core::generate::{GenOptions, generate, generate_chat2graph};
use toolscope_core::load::load_text;
use toolscope_core::recommend::{Params, recommend, resolve_seeds};
use toolscope_core::source::{Format, Limits};

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

fn opts(actions: usize) -> GenOptions {
    GenOptions {
        actions,
        tools: None,
        seed: 1,
    }
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8));
    for n in SIZES {
        for (name, text, format) in [
            ("native", generate(opts(n)), Format::Native),
            (
                "chat2graph",
                generate_chat2graph(opts(n)),
                Format::Chat2Graph,
            ),
        ] {
            group.bench_with_input(BenchmarkId::new(name, n), &text, |b, text| {
                b.iter(|| {
                    load_text(
                        Path::new("bench.yaml"),
                        text.clone(),
                        Some(format),
                        &Limits::default(),
                    )
                    .map(|f| black_box(f.toolkit.graph.node_count()))
                })
            });
        }
    }
    group.finish();
}

fn recommend_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("recommend");
    group.warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let Ok(file) = load_text(
            Path::new("bench.yaml"),
            generate(opts(n)),
            None,
            &Limits::default(),
        ) else {
            continue;
        };
        let tk = file.toolkit;
        let names: Vec<String> = (0..10).map(|i| format!("a{}", i * n / 10)).collect();
        let (seeds, _) = resolve_seeds(&tk, &names);
        for hops in [0, 1, 3, 10] {
            let params = Params {
                threshold: 0.5,
                hops,
            };
            group.bench_function(BenchmarkId::new(format!("hops{hops}"), n), |b| {
                b.iter(|| black_box(recommend(&tk, &seeds, params).len()))
            });
        }
    }
    group.finish();
}

/// The SVG of a replayed step on the BFCL kit (issue 44; `tests/fixtures/replay/README.md`
/// says where it came from: 128 tools, 2,480 Next edges, a step offering 16 tools): what
/// `toolscope export KIT --to svg --traces RUNS --replay 1 4` does after loading, from
/// the replay of the record to the text of the picture.
fn svg_step(c: &mut Criterion) {
    use toolscope_core::evidence::steps::replay::{caption, replay};
    use toolscope_core::evidence::{load_traces, otlp};
    use toolscope_core::export::{Called, ExportFormat, Highlight, Title};

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay");
    let Ok(loaded) = toolscope_core::load::load_paths(&[root.join("bfcl-kit.yaml")], None) else {
        return;
    };
    let tk = loaded.toolkit;
    let Ok((records, _)) = load_traces(
        &[root.join("bfcl-runs.jsonl")],
        None,
        &otlp::OperatorNaming::default(),
    ) else {
        return;
    };
    let mut group = c.benchmark_group("export_svg");
    group.warm_up_time(Duration::from_secs(1));
    group.bench_function("bfcl_replay_1_4", |b| {
        b.iter(|| {
            let Ok(mut played) = replay(&tk, &records[0], None, 1) else {
                return 0;
            };
            let Some(s) = played.step(&tk, 4) else {
                return 0;
            };
            let mut rec = recommend(&tk, &s.offer.seeds, played.params);
            if let Some(set) = &played.available {
                rec.retain_tools(&tk, |x| set.binary_search(&x).is_ok());
            }
            let hl = Highlight {
                rec: &rec,
                threshold: played.params.threshold,
                seeds: &s.offer.seeds,
            };
            let title = Title {
                file: "bfcl-kit.yaml".into(),
                operator: played.operator.clone(),
                hops: Some(played.params.hops),
                called: Some(Called {
                    node: s.target,
                    hit: s.hit,
                    caption: caption(0, &played, &s),
                }),
            };
            black_box(ExportFormat::Svg.write(&tk, Some(&hl), false, &title).len())
        })
    });
    group.finish();
}

criterion_group!(benches, load, recommend_bench, svg_step);
criterion_main!(benches);
