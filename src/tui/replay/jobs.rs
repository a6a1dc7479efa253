//! What the replay's threads send back to the loop. A file of its own, naming nothing of
//! the loop, so the message enum can carry these without a circle of files (the replay's
//! `mod.rs` sends them and names the message enum).

/// The hits of a replayed record's steps, walked on a thread (`Msg::ReplayHits`).
#[derive(Debug, Clone)]
pub struct HitsDone {
    /// The job: an older one's hits are stale.
    pub id: u64,
    pub hits: Vec<bool>,
}

/// `R`'s summaries, walked on a thread (`Msg::ReplaySummaries`).
#[derive(Debug, Clone)]
pub struct SummariesDone {
    /// The job: an older one's summaries are stale.
    pub id: u64,
    pub summaries: Vec<Option<(usize, usize)>>,
}
