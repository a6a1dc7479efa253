//! Running sums of the step evaluation: at the records' own parameters, and over every
//! threshold (the exact step function) for each hop count.
//!
//! Over the threshold, a step's offer at `t` is every tool whose critical value is `>= t`
//! (for a Chat2Graph config, every function sent whose edge's value is `>= t`), so each is
//! summed once into the bucket of its value and the points are the running sums of the
//! buckets from the highest value down: memory grows with the distinct scores, never with
//! the steps.

use std::collections::HashMap;

/// Sums over steps at one setting.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Sums {
    pub steps: u64,
    pub hits: u64,
    pub offered: u64,
    pub tokens: u64,
}

impl Sums {
    pub(crate) fn add(&mut self, o: &Sums) {
        self.steps += o.steps;
        self.hits += o.hits;
        self.offered += o.offered;
        self.tokens += o.tokens;
    }
}

/// One point of the sweep: the offer at `threshold` with `hops`, means per step.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepPoint {
    pub threshold: f64,
    pub hops: u32,
    pub recall: f64,
    pub offered_tools: f64,
    pub tokens: f64,
    /// `tokens` over the baseline's mean tokens (`None` when the baseline costs nothing).
    pub token_ratio: Option<f64>,
    /// The second figure at this setting: the share of the records' first calls their
    /// operator's offer held (`None` without first calls).
    pub first_recall: Option<f64>,
    /// Mean tokens of that offer per first call (`None` without first calls).
    pub first_tokens: Option<f64>,
}

/// What a bucket of one critical value adds when the threshold reaches it.
#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    hits: u64,
    offered: u64,
    tokens: u64,
}

/// The sweep sums of one group at one hop count: buckets by the bits of the value.
#[derive(Debug, Default)]
pub(crate) struct SweepTally {
    buckets: HashMap<u64, Bucket, foldhash::fast::RandomState>,
}

impl SweepTally {
    /// `offered` tools (summed over steps) costing `tokens` in all are offered from their
    /// value `v` down.
    pub(crate) fn offer(&mut self, v: f64, offered: u64, tokens: u64) {
        let b = self.buckets.entry(v.to_bits()).or_default();
        b.offered += offered;
        b.tokens += tokens;
    }

    /// `n` steps whose target is offered from `v` down.
    pub(crate) fn hit(&mut self, v: f64, n: u64) {
        self.buckets.entry(v.to_bits()).or_default().hits += n;
    }

    /// The points, threshold descending: one per distinct value.
    pub(crate) fn points(&self, hops: u32, steps: u64, base_tokens: u64) -> Vec<SweepPoint> {
        let mut keys: Vec<f64> = self.buckets.keys().map(|&k| f64::from_bits(k)).collect();
        keys.sort_by(|a, b| b.total_cmp(a));
        let n = steps.max(1) as f64;
        let mut run = Bucket::default();
        keys.into_iter()
            .map(|v| {
                let b = self.buckets[&v.to_bits()];
                run.hits += b.hits;
                run.offered += b.offered;
                run.tokens += b.tokens;
                SweepPoint {
                    threshold: v,
                    hops,
                    recall: run.hits as f64 / n,
                    offered_tools: run.offered as f64 / n,
                    tokens: run.tokens as f64 / n,
                    token_ratio: ratio(run.tokens, base_tokens),
                    first_recall: None,
                    first_tokens: None,
                }
            })
            .collect()
    }
}

impl SweepTally {
    /// Fills in the first calls' figures of `points` (one hop count's, threshold
    /// descending, as [`SweepTally::points`] gives them) from this tally of the `calls`
    /// first calls: at each point's threshold, every first call's offer from that value up.
    pub(crate) fn fill_first(&self, points: &mut [SweepPoint], calls: u64) {
        if calls == 0 {
            return;
        }
        let mut keys: Vec<f64> = self.buckets.keys().map(|&k| f64::from_bits(k)).collect();
        keys.sort_by(|a, b| b.total_cmp(a));
        let mut keys = keys.into_iter().peekable();
        let mut run = Bucket::default();
        let n = calls as f64;
        for p in points {
            while let Some(v) = keys.next_if(|&v| v >= p.threshold) {
                let b = self.buckets[&v.to_bits()];
                run.hits += b.hits;
                run.tokens += b.tokens;
            }
            p.first_recall = Some(run.hits as f64 / n);
            p.first_tokens = Some(run.tokens as f64 / n);
        }
    }
}

/// `a / b` as a share, `None` when `b` is 0.
pub(crate) fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// The cheapest point reaching step recall `recall` (and above 0): the one rule of
/// [`criterion::choose`](crate::evidence::criterion::choose), fewest tokens, then fewer
/// tools, then the higher threshold, then fewer hops.
pub fn suggest(points: &[SweepPoint], recall: f64) -> Option<SweepPoint> {
    use crate::evidence::criterion::{Criterion, Point, choose};
    let as_point = |p: &SweepPoint| Point {
        threshold: p.threshold,
        hops: p.hops,
        value: p.recall,
        tokens: p.tokens,
        offered_tools: p.offered_tools,
    };
    let pick = choose(&Criterion::StepRecall(recall), points.iter().map(as_point))?;
    points.iter().find(|p| as_point(p) == pick).cloned()
}

/// The highest recall within `budget` (a share of the baseline's tokens): ties go to fewer
/// tokens, then the higher threshold, then fewer hops. A point with recall 0 is never the
/// best (it offers nothing the runs called).
pub fn best_within(points: &[SweepPoint], budget: f64) -> Option<SweepPoint> {
    points
        .iter()
        .filter(|p| p.recall > 0.0 && p.token_ratio.is_some_and(|r| r <= budget + 1e-12))
        .min_by(|a, b| {
            (-a.recall, a.tokens, -a.threshold, a.hops)
                .partial_cmp(&(-b.recall, b.tokens, -b.threshold, b.hops))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .cloned()
}
