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
    /// The runs counted before the walk budget ran out (all of them when it did not).
    pub walked: usize,
}

/// A replay job walked on a thread (`Msg::ReplayJob`); each names its job, and one that is
/// not the pane's current job of its kind is stale and dropped.
#[derive(Debug, Clone)]
pub enum JobDone {
    /// `)`/`(`: the next or previous miss across the loaded runs.
    Miss {
        id: u64,
        forward: bool,
        found: toolscope_core::evidence::steps::search::Found,
    },
    /// `t`: the candidates measured over every loaded run, ranked, and how many the walk
    /// budget left unmeasured.
    Tune {
        id: u64,
        list: Vec<toolscope_core::evidence::steps::tune::Candidate>,
        unmeasured: usize,
    },
    /// The run's standing: the step numbers over every loaded run and over this one.
    Standing {
        id: u64,
        all: Option<toolscope_core::evidence::steps::figures::Figures>,
        this: Option<toolscope_core::evidence::steps::figures::Figures>,
    },
}
