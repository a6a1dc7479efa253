//! `R`'s list of loaded runs: its order (`o` cycles file order, most misses first, lowest
//! recall first) and its filter (`f`: only the runs with a miss), from each run's summary
//! (hits and steps, walked on a thread). A run not summarised yet (or past the walk
//! budget, or without its calls in order) is listed last, and not among the runs with a
//! miss.

use crossterm::event::{KeyCode, KeyEvent};

/// The order of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// As the trace files hold them.
    #[default]
    File,
    /// Most misses first.
    Misses,
    /// Lowest step recall first.
    Recall,
}

impl Order {
    fn next(self) -> Order {
        match self {
            Order::File => Order::Misses,
            Order::Misses => Order::Recall,
            Order::Recall => Order::File,
        }
    }

    /// The order in words, for the list's title and the status line.
    pub fn label(self) -> &'static str {
        match self {
            Order::File => "file order",
            Order::Misses => "most misses first",
            Order::Recall => "lowest recall first",
        }
    }
}

/// The list's order and filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunsList {
    pub order: Order,
    /// Only the runs with a miss.
    pub misses_only: bool,
}

impl RunsList {
    /// `o` and `f` (the keymap's `runs-order` and `runs-misses`): what changed, in words;
    /// `None` for another key.
    pub fn key(&mut self, k: &KeyEvent) -> Option<String> {
        match k.code {
            KeyCode::Char('o') => {
                self.order = self.order.next();
                Some(format!("runs: {}", self.order.label()))
            }
            KeyCode::Char('f') => {
                self.misses_only = !self.misses_only;
                Some(if self.misses_only {
                    "runs: only those with a miss (f: every run)".to_string()
                } else {
                    "runs: every run".to_string()
                })
            }
            _ => None,
        }
    }

    /// The title's words: the order, and the filter when on.
    pub fn label(&self) -> String {
        if self.misses_only {
            format!("{} · with a miss", self.order.label())
        } else {
            self.order.label().to_string()
        }
    }

    /// The records listed (indices into the loaded records), in order. Ties keep file
    /// order.
    pub fn rows(&self, summaries: &[Option<(usize, usize)>], records: usize) -> Vec<usize> {
        let of = |i: usize| summaries.get(i).copied().flatten();
        let mut rows: Vec<usize> = (0..records)
            .filter(|&i| !self.misses_only || of(i).is_some_and(|(h, n)| h < n))
            .collect();
        // Summarised runs first under a sorting order; the key is then smaller-first.
        let key = |i: usize| -> (bool, f64) {
            match (self.order, of(i)) {
                (_, None) => (true, 0.0),
                (Order::Misses, Some((h, n))) => (false, -((n - h) as f64)),
                (Order::Recall, Some((h, n))) => (false, h as f64 / n.max(1) as f64),
                (Order::File, Some(_)) => (false, 0.0),
            }
        };
        if self.order != Order::File {
            rows.sort_by(|&a, &b| {
                let (ka, kb) = (key(a), key(b));
                ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
            });
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn press(l: &mut RunsList, c: char) {
        l.key(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }

    #[test]
    fn rows_sort_by_misses_and_recall_and_filter_to_misses() {
        // 0: 2/5 (3 misses, 0.4), 1: all 4 hit, 2: not counted, 3: 1/2 (1 miss, 0.5),
        // 4: 0/1 (1 miss, 0.0).
        let s = vec![Some((2, 5)), Some((4, 4)), None, Some((1, 2)), Some((0, 1))];
        let mut l = RunsList::default();
        assert_eq!(l.rows(&s, 5), vec![0, 1, 2, 3, 4]);
        press(&mut l, 'o');
        assert_eq!(l.order, Order::Misses);
        assert_eq!(l.rows(&s, 5), vec![0, 3, 4, 1, 2]);
        press(&mut l, 'o');
        assert_eq!(l.rows(&s, 5), vec![4, 0, 3, 1, 2]);
        press(&mut l, 'f');
        assert_eq!(l.rows(&s, 5), vec![4, 0, 3]);
        assert_eq!(l.label(), "lowest recall first · with a miss");
        press(&mut l, 'o');
        assert_eq!(l.rows(&s, 5), vec![0, 3, 4]);
        // Summaries not come yet: every run, in file order; none with a miss.
        assert_eq!(l.rows(&[], 3), Vec::<usize>::new());
        press(&mut l, 'f');
        assert_eq!(l.rows(&[], 3), vec![0, 1, 2]);
    }
}
