//! Messages for the user: a severity and a text. Every front end shows them its own way
//! (the TUI's status line and message log, the CLI's stderr).

/// Severity of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Error,
}

/// A message for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub text: String,
    pub level: Level,
}

impl Status {
    pub fn info(text: impl Into<String>) -> Status {
        Status {
            text: text.into(),
            level: Level::Info,
        }
    }

    pub fn error(text: impl Into<String>) -> Status {
        Status {
            text: text.into(),
            level: Level::Error,
        }
    }
}
