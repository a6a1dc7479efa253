//! A tiny deterministic generator for the randomized write-back tests: the text shape
//! follows from one seed. Shared by several test files (`crate::common::rng`).
#![allow(dead_code)]

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn coin(&mut self) -> bool {
        self.next().is_multiple_of(2)
    }
}
