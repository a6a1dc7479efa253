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

criterion_group!(benches, load, recommend_bench);
criterion_main!(benches);
