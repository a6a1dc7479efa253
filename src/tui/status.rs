//! The message log: every message of this session kept whole for `:messages` (and `M`), so
//! a long refusal cut in the status line can always be read in full.

pub use toolscope_core::session::{Level, Status};

/// The messages of this session, oldest first, at most [`Log::KEEP`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Log {
    entries: std::collections::VecDeque<Status>,
}

impl Log {
    pub const KEEP: usize = 200;

    /// Records a message (a repeat of the last one is recorded once).
    pub fn push(&mut self, s: &Status) {
        if self.entries.back() == Some(s) {
            return;
        }
        if self.entries.len() == Self::KEEP {
            self.entries.pop_front();
        }
        self.entries.push_back(s.clone());
    }

    pub fn iter(&self) -> impl Iterator<Item = &Status> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
