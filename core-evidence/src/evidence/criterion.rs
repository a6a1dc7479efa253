//! What a suggested setting optimises, and the one rule that picks it.
//!
//! Every suggestion toolscope makes (`eval --sweep`, `eval --steps --sweep`, `fit`'s
//! summary, the TUI's evidence panel) names a [`Criterion`] and picks its setting with
//! [`choose`] over the points of a sweep (threshold and hops, each with the criterion's
//! measure and its tokens). The same criterion on the same points gives the same setting
//! wherever it is asked, and a setting that reaches nothing (a measure of 0) is never
//! suggested.
//!
//! Which criterion applies when the user names none: [`Criterion::auto`]. Records with
//! their calls in order are judged step by step (the cheapest setting whose next-call
//! recall reaches the target, 0.90 unless given); records without order by completeness
//! (the cheapest setting offering every called tool of as many records as asked, all of
//! them unless given).

use std::cmp::Ordering;

/// The recall a step suggestion must reach unless the user says otherwise.
pub const TARGET_RECALL: f64 = 0.9;

/// What a suggestion optimises: always the fewest tokens, under a floor on one measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Criterion {
    /// The fewest tokens per step whose next-call recall (step recall) is at least this.
    StepRecall(f64),
    /// The fewest tokens per record whose completeness (the share of records with every
    /// called tool offered) is at least this.
    Complete(f64),
}

impl Criterion {
    /// The criterion for records: step recall (at `target_recall`) when some record gives
    /// its calls in order, completeness (at `min_complete`, or 1.0) otherwise; an explicit
    /// `min_complete` asks for completeness.
    pub fn auto(ordered: bool, target_recall: f64, min_complete: Option<f64>) -> Criterion {
        match (min_complete, ordered) {
            (Some(m), _) => Criterion::Complete(m),
            (None, true) => Criterion::StepRecall(target_recall),
            (None, false) => Criterion::Complete(1.0),
        }
    }

    /// The floor the measure must reach.
    pub fn target(&self) -> f64 {
        match *self {
            Criterion::StepRecall(x) | Criterion::Complete(x) => x,
        }
    }

    /// The measure's name as reports write it: `step recall`, `complete`.
    pub fn measure(&self) -> &'static str {
        match self {
            Criterion::StepRecall(_) => "step recall",
            Criterion::Complete(_) => "complete",
        }
    }

    /// A stable key for JSON: `step_recall`, `complete`.
    pub fn key(&self) -> &'static str {
        match self {
            Criterion::StepRecall(_) => "step_recall",
            Criterion::Complete(_) => "complete",
        }
    }

    /// In words: `fewest tokens reaching step recall 0.90`.
    pub fn describe(&self) -> String {
        match self {
            Criterion::StepRecall(x) => format!("fewest tokens reaching step recall {x:.2}"),
            Criterion::Complete(x) => format!("fewest tokens keeping complete {x:.2}"),
        }
    }
}

/// One setting of a sweep as the criterion sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub threshold: f64,
    pub hops: u32,
    /// The criterion's measure at this setting (step recall, or completeness).
    pub value: f64,
    /// Mean tokens of the offer (per step, or per record).
    pub tokens: f64,
    pub offered_tools: f64,
}

/// The setting the criterion suggests among `points`: of those whose measure reaches the
/// target and is above 0, the fewest tokens, then fewer tools, then the higher threshold,
/// then fewer hops. `None` when no point qualifies.
pub fn choose(criterion: &Criterion, points: impl IntoIterator<Item = Point>) -> Option<Point> {
    let target = criterion.target();
    points
        .into_iter()
        .filter(|p| p.value > 0.0 && p.value >= target - 1e-12)
        .min_by(order)
}

fn order(a: &Point, b: &Point) -> Ordering {
    a.tokens
        .total_cmp(&b.tokens)
        .then(a.offered_tools.total_cmp(&b.offered_tools))
        .then(b.threshold.total_cmp(&a.threshold))
        .then(a.hops.cmp(&b.hops))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(threshold: f64, hops: u32, value: f64, tokens: f64) -> Point {
        Point {
            threshold,
            hops,
            value,
            tokens,
            offered_tools: tokens / 10.0,
        }
    }

    #[test]
    fn cheapest_point_reaching_the_target() {
        let pts = [
            p(0.5, 1, 0.8, 100.0),
            p(0.3, 1, 0.9, 200.0),
            p(0.2, 2, 0.95, 150.0),
        ];
        let got = choose(&Criterion::StepRecall(0.9), pts).map(|x| (x.threshold, x.hops));
        assert_eq!(got, Some((0.2, 2)));
        assert_eq!(choose(&Criterion::StepRecall(0.99), pts), None);
    }

    #[test]
    fn a_point_reaching_nothing_is_never_chosen() {
        // A target of 0 is met by every point; the free one offers nothing useful.
        let pts = [p(1.0, 0, 0.0, 0.0), p(0.4, 1, 0.5, 80.0)];
        let got = choose(&Criterion::Complete(0.0), pts).map(|x| x.threshold);
        assert_eq!(got, Some(0.4));
        assert_eq!(
            choose(&Criterion::Complete(0.0), [p(1.0, 0, 0.0, 0.0)]),
            None
        );
    }

    #[test]
    fn ties_go_to_the_higher_threshold_then_fewer_hops() {
        let pts = [
            p(0.3, 2, 0.9, 100.0),
            p(0.3, 1, 0.9, 100.0),
            p(0.2, 1, 0.9, 100.0),
        ];
        let got = choose(&Criterion::StepRecall(0.9), pts).map(|x| (x.threshold, x.hops));
        assert_eq!(got, Some((0.3, 1)));
    }

    #[test]
    fn auto_follows_the_order_of_the_records() {
        assert_eq!(Criterion::auto(true, 0.9, None), Criterion::StepRecall(0.9));
        assert_eq!(Criterion::auto(false, 0.9, None), Criterion::Complete(1.0));
        assert_eq!(
            Criterion::auto(true, 0.9, Some(0.8)),
            Criterion::Complete(0.8)
        );
        assert_eq!(
            Criterion::StepRecall(0.9).describe(),
            "fewest tokens reaching step recall 0.90"
        );
    }
}
