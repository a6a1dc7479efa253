//! Byte-pair encoding token counts over the rank tables `build.rs` prepared: the same counts
//! as `tiktoken`'s `encode_ordinary`, with nothing parsed at start.
//!
//! A text is split into pieces by the encoding's pattern (the one `tiktoken` uses, run by
//! `fancy-regex` as `tiktoken` runs it); a piece that is a token counts one, any other is
//! merged pair by pair, always the adjacent pair whose merged bytes have the lowest rank
//! (the leftmost of equals), until no merged pair is a token: its count is the parts left.
//! Ranks are found by binary search in the sorted table, read in place from the binary.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A rank table laid out by `build.rs`.
pub(crate) struct Table {
    n: usize,
    offsets: &'static [u8],
    ranks: &'static [u8],
    bytes: &'static [u8],
}

impl Table {
    /// Reads a blob's header; `None` when it is not one (the build wrote it, so never).
    pub(crate) fn new(blob: &'static [u8]) -> Option<Table> {
        let rest = blob.strip_prefix(b"TSBPE1\0\0")?;
        let n = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let rest = &rest[4..];
        let (offsets, rest) = rest.split_at_checked((n + 1) * 4)?;
        let (ranks, bytes) = rest.split_at_checked(n * 4)?;
        Some(Table {
            n,
            offsets,
            ranks,
            bytes,
        })
    }

    fn u32_at(slice: &[u8], i: usize) -> usize {
        let b = &slice[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    }

    fn token(&self, i: usize) -> &'static [u8] {
        let (a, b) = (
            Self::u32_at(self.offsets, i),
            Self::u32_at(self.offsets, i + 1),
        );
        self.bytes.get(a..b).unwrap_or_default()
    }

    /// The rank of a token's bytes.
    pub(crate) fn rank(&self, piece: &[u8]) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.token(mid).cmp(piece) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Some(Self::u32_at(self.ranks, mid) as u32),
            }
        }
        None
    }

    /// The tokens of one piece of the split.
    pub(crate) fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.rank(piece).is_some() {
            return piece.len().min(1);
        }
        merge(piece, |bytes| self.rank(bytes))
    }
}

/// How many parts a piece merges into. The parts form a linked list over their start
/// positions; a heap holds each adjacent pair's rank with its left part's start, so the
/// lowest rank (then the leftmost) merges next, and entries made stale by a merge are
/// skipped when they surface: O(n log n) even for a piece of a million spaces.
fn merge(piece: &[u8], rank: impl Fn(&[u8]) -> Option<u32>) -> usize {
    let n = piece.len();
    // next[i]: the start of the part after the one starting at i (n at the end);
    // prev[i] likewise; alive[i]: whether a part starts at i.
    let mut next: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let mut heap: BinaryHeap<std::cmp::Reverse<(u32, usize, usize)>> = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<_>, i: usize, next: &[usize]| {
        let j = next[i];
        if j < n {
            let end = next[j];
            if let Some(r) = rank(&piece[i..end]) {
                heap.push(std::cmp::Reverse((r, i, end)));
            }
        }
    };
    for i in 0..n {
        push(&mut heap, i, &next);
    }
    let mut parts = n;
    while let Some(std::cmp::Reverse((_, i, end))) = heap.pop() {
        // Stale: the left part is gone, or the pair it named has changed.
        if !alive[i] || next[i] >= n || next[next[i]] != end {
            continue;
        }
        let j = next[i];
        alive[j] = false;
        next[i] = end;
        if end < n {
            prev[end] = i;
        }
        parts -= 1;
        push(&mut heap, i, &next);
        if prev[i] < n {
            push(&mut heap, prev[i], &next);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook merge: scan for the lowest-ranked pair (leftmost of equals), merge it,
    /// repeat. Quadratic; the reference for the heap version.
    fn brute(piece: &[u8], rank: impl Fn(&[u8]) -> Option<u32>) -> usize {
        let mut bounds: Vec<usize> = (0..=piece.len()).collect();
        loop {
            let best = (0..bounds.len().saturating_sub(2))
                .filter_map(|i| rank(&piece[bounds[i]..bounds[i + 2]]).map(|r| (r, i)))
                .min();
            match best {
                Some((_, i)) => {
                    bounds.remove(i + 1);
                }
                None => return bounds.len() - 1,
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn heap_merge_equals_the_textbook_merge(piece in proptest::collection::vec(0u8..4, 2..40)) {
            // A toy vocabulary over 4 symbols: every string of length <= 3 whose bytes sum
            // to an even number, ranked by a fixed mix of its bytes (ties impossible).
            let rank = |b: &[u8]| -> Option<u32> {
                (b.len() <= 3 && b.iter().map(|&x| x as u32).sum::<u32>() % 2 == 0)
                    .then(|| b.iter().fold(7u32, |h, &x| h.wrapping_mul(31).wrapping_add(x as u32 + 1)))
            };
            proptest::prop_assert_eq!(merge(&piece, rank), brute(&piece, rank));
        }
    }
}
