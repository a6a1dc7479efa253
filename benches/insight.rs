//! Critical values, the sweep and explain on random toolkits of 10k and 100k actions
//! (about 4 `Next` edges and 1 to 5 tool calls per action), hops 3.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use petgraph::stable_graph::NodeIndex;
use toolscope_core::model::{Node, NodeKind, Toolkit};
use toolscope_core::recommend::{Adjacency, Critical, Insight, Params, explain, explain_with};

/// A small deterministic generator (xorshift), so runs are comparable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn score(&mut self) -> f64 {
        (self.below(100) + 1) as f64 / 100.0
    }
}

fn toolkit(actions: usize) -> Toolkit {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut tk = Toolkit::new();
    let a: Vec<NodeIndex> = (0..actions)
        .map(|i| tk.add_node(Node::new(NodeKind::Action, format!("a{i}"))))
        .collect();
    let tools = (actions / 4).max(1);
    let t: Vec<NodeIndex> = (0..tools)
        .map(|i| tk.add_node(Node::new(NodeKind::Tool, format!("t{i}"))))
        .collect();
    for &u in &a {
        for _ in 0..4 {
            let v = a[rng.below(actions)];
            let s = rng.score();
            tk.add_edge(u, v, s, None);
        }
        for _ in 0..1 + rng.below(5) {
            let v = t[rng.below(tools)];
            let s = rng.score();
            tk.add_edge(u, v, s, None);
        }
    }
    tk
}

fn seeds(tk: &Toolkit, n: usize) -> Vec<NodeIndex> {
    let mut rng = Rng(42);
    let actions = tk.counts().0;
    (0..n)
        .filter_map(|_| tk.action(&format!("a{}", rng.below(actions))))
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("insight");
    group
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1));
    for size in [10_000usize, 100_000] {
        let tk = toolkit(size);
        group.bench_function(BenchmarkId::new("adjacency", size), |b| {
            b.iter(|| Adjacency::new(black_box(&tk)))
        });
        let adj = Adjacency::new(&tk);
        for n_seeds in [10usize, 1000] {
            let s = seeds(&tk, n_seeds);
            let id = format!("{size}/{n_seeds}seeds");
            group.bench_with_input(BenchmarkId::new("sweep_h3", &id), &s, |b, s| {
                b.iter(|| Critical::compute(&tk, black_box(s), 3).sweep(&tk))
            });
            group.bench_with_input(
                BenchmarkId::new("sweep_h3_kept_adjacency", &id),
                &s,
                |b, s| b.iter(|| Critical::compute_in(&tk, &adj, black_box(s), 3).sweep(&tk)),
            );
            let p = Params {
                threshold: 0.5,
                hops: 3,
            };
            group.bench_with_input(BenchmarkId::new("insight_h3_t0.5", &id), &s, |b, s| {
                b.iter(|| Insight::compute(&tk, black_box(s), p))
            });
            group.bench_with_input(
                BenchmarkId::new("insight_h3_t0.5_kept_adjacency", &id),
                &s,
                |b, s| b.iter(|| Insight::compute_in(&tk, &adj, black_box(s), p)),
            );
        }
        let s = seeds(&tk, 10);
        let far = tk
            .action(&format!("a{}", size - 1))
            .unwrap_or(NodeIndex::new(0));
        let p = Params {
            threshold: 0.9,
            hops: 3,
        };
        group.bench_function(BenchmarkId::new("explain_far_node", size), |b| {
            b.iter(|| explain(&tk, black_box(&s), p, far))
        });
        let insight = Insight::compute_in(&tk, &adj, &s, p);
        group.bench_function(BenchmarkId::new("explain_far_node_kept", size), |b| {
            b.iter(|| explain_with(&tk, &adj, black_box(&s), p, &insight, far))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
