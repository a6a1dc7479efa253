//! The walks of the TUI's jobs against the plain walks they replace: the next miss against
//! every step replayed, the measures against `measure`, the standing against `figures`;
//! the stop flag and the budget honoured.

use std::sync::atomic::AtomicBool;

use proptest::prelude::*;

use super::figures::{Basis, figures};
use super::replay::replay;
use super::search::{
    Found, MOST_STEPS, WalkBudget, at_setting, measure_within, next_miss, standing, summaries,
};
use super::tests::{arb_case, cost};
use super::tune::{candidates, measure};
use super::*;
use crate::evidence::eval_tests::toolkit;
use crate::evidence::{CostFn, Record};

/// Every miss of `records` in order (record, step), from every step replayed.
fn all_misses(tk: &Toolkit, records: &[Record]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let Ok(mut played) = replay(tk, r, None, 1) else {
            continue;
        };
        for s in played.all_steps(tk) {
            if !s.hit {
                out.push((i, s.step));
            }
        }
    }
    out
}

fn never() -> AtomicBool {
    AtomicBool::new(false)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_next_miss_is_the_first_miss_after_the_step((tk, records) in arb_case(), at in 0..6usize, k in 0..6usize) {
        let misses = all_misses(&tk, &records);
        let from = (at.min(records.len().saturating_sub(1)), k);
        let mut budget = WalkBudget::default();
        let next = next_miss(&tk, &records, None, from, true, &never(), &mut budget).unwrap();
        let want = misses.iter().find(|&&m| m > from).copied();
        match (next, want) {
            (Found::Miss { record, step }, Some(w)) => prop_assert_eq!((record, step), w),
            (Found::Nothing { .. }, None) => {}
            (got, want) => prop_assert!(false, "{got:?} for {want:?}"),
        }
        let prev = next_miss(&tk, &records, None, from, false, &never(), &mut budget).unwrap();
        let want = misses.iter().rev().find(|&&m| m < from).copied();
        match (prev, want) {
            (Found::Miss { record, step }, Some(w)) => prop_assert_eq!((record, step), w),
            (Found::Nothing { .. }, None) => {}
            (got, want) => prop_assert!(false, "{got:?} for {want:?}"),
        }
    }

    #[test]
    fn summaries_count_the_hits_of_every_step((tk, records) in arb_case()) {
        let (got, walked) = summaries(&tk, &records, &never(), &mut WalkBudget::default()).unwrap();
        prop_assert_eq!(walked, records.len());
        for (r, s) in records.iter().zip(got) {
            let mut played = replay(&tk, r, None, 1).unwrap();
            let steps = played.all_steps(&tk);
            let want = (!steps.is_empty()).then(|| (steps.iter().filter(|s| s.hit).count(), steps.len()));
            prop_assert_eq!(s, want);
        }
    }
}

/// `a -0.8-> b -0.4-> c`, op seeds [a] at 0.5 and 1 hop: after X, Z (two hops) is a miss.
fn runs() -> Vec<Record> {
    vec![
        Record::ordered("op", &["X", "Y"]),
        Record::ordered("op", &["X", "Y", "Z"]),
        Record::ordered("op", &["X", "Z", "Y", "Z"]),
    ]
}

#[test]
fn a_set_stop_flag_ends_every_walk() {
    let tk = toolkit();
    let records = runs();
    let stop = AtomicBool::new(true);
    let mut budget = WalkBudget::default();
    assert_eq!(
        next_miss(&tk, &records, None, (0, 0), true, &stop, &mut budget),
        None
    );
    assert_eq!(budget.spent(), 0, "a stopped search walks no step");
    assert_eq!(summaries(&tk, &records, &stop, &mut budget), None);
    let c = CostFn(cost(&tk));
    assert_eq!(
        measure_within(
            &tk,
            &records,
            vec![Vec::new()],
            &c,
            Basis::Steps,
            &stop,
            &mut budget
        ),
        None
    );
    assert_eq!(standing(&tk, &records, 0, None, &stop, &mut budget), None);
    let mut counter = StepCounter::new(&tk, StepOptions::default());
    counter.add(&records[1]);
    assert!(counter.finish_within(&c, &stop).is_none());
}

#[test]
fn the_budget_bounds_the_steps_walked() {
    let tk = toolkit();
    let records = runs();
    // The first miss is run 2's step 2 (record 1 from 0): four steps walked to reach it.
    let mut budget = WalkBudget::new(MOST_STEPS);
    let found = next_miss(&tk, &records, None, (0, 0), true, &never(), &mut budget);
    assert_eq!(found, Some(Found::Miss { record: 1, step: 2 }));
    assert_eq!(budget.spent(), 4, "run 1's step 1, run 2's steps 0 to 2");
    let mut budget = WalkBudget::new(3);
    let found = next_miss(&tk, &records, None, (0, 0), true, &never(), &mut budget);
    assert_eq!(found, Some(Found::OverBudget { record: 1, runs: 2 }));
    assert_eq!(budget.spent(), 3);
    // Summaries: run 1 (2 steps) fits a budget of 4, run 2 (3 steps) does not.
    let (got, walked) = summaries(&tk, &records, &never(), &mut WalkBudget::new(4)).unwrap();
    assert_eq!(walked, 1);
    assert_eq!(got, vec![Some((2, 2)), None, None]);
}

#[test]
fn measures_off_the_thread_are_the_measures_on_it() {
    let tk = toolkit();
    let records = runs();
    let mut played = replay(&tk, &records[1], None, 1).unwrap();
    let step = played.step(&tk, 2).unwrap();
    assert!(!step.hit);
    let params = played.params;
    let list = candidates(&tk, &step, params, Some("op"), None);
    assert!(list.len() >= 2, "{list:?}");
    let c = CostFn(cost(&tk));
    let want = measure(&tk, &records, list.clone(), &c, Basis::Steps);
    let mut budget = WalkBudget::default();
    let (got, unmeasured) = measure_within(
        &tk,
        &records,
        list.clone(),
        &c,
        Basis::Steps,
        &never(),
        &mut budget,
    )
    .unwrap();
    assert_eq!((got, unmeasured), (want, 0));
    // 9 calls a measure: before and the first candidate fit 18 steps, the rest do not.
    let (got, unmeasured) = measure_within(
        &tk,
        &records,
        list.clone(),
        &c,
        Basis::Steps,
        &never(),
        &mut WalkBudget::new(18),
    )
    .unwrap();
    assert_eq!((got.len(), unmeasured), (1, list.len() - 1));
}

#[test]
fn a_runs_standing_is_the_tallys_numbers_at_the_view_setting() {
    let tk = toolkit();
    let records = runs();
    let view = Params {
        threshold: 0.3,
        hops: 2,
    };
    let (all, this) = standing(
        &tk,
        &records,
        2,
        Some(("op", view)),
        &never(),
        &mut WalkBudget::default(),
    )
    .unwrap();
    let at = at_setting(&tk, Some("op"), view);
    let free = CostFn(|_| 0);
    let want_all = figures(&at, &records, StepOptions::default(), &free);
    assert_eq!(all, Some(want_all));
    assert_eq!(
        this,
        Some(figures(&at, &records[2..3], StepOptions::default(), &free))
    );
    // The view's setting offers Z two hops away; the operator's does not.
    assert!(
        want_all.steps.recall()
            > figures(&tk, &records, StepOptions::default(), &free)
                .steps
                .recall()
    );
    // Past the budget: nothing counted.
    let (all, this) = standing(&tk, &records, 2, None, &never(), &mut WalkBudget::new(4)).unwrap();
    assert_eq!(
        (all, this),
        (
            None,
            Some(figures(&tk, &records[2..3], StepOptions::default(), &free))
        )
    );
}
