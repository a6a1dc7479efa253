//! The frame around panes: bordered blocks, the active pane highlighted, ASCII in ASCII mode.

use ratatui::symbols;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders};

use crate::tui::app::{ActivePane, App};

/// A bordered block, highlighted when `pane` is the active pane.
pub fn pane_block<'a>(app: &App, title: impl Into<Line<'a>>, pane: ActivePane) -> Block<'a> {
    bordered(app)
        .border_style(app.theme.active_border(app.active_pane == pane))
        .title(title)
}

/// A block with all borders, ASCII ones in ASCII mode.
pub fn bordered<'a>(app: &App) -> Block<'a> {
    let b = Block::default().borders(Borders::ALL);
    if app.theme.ascii {
        b.border_set(ASCII_BORDER)
    } else {
        b
    }
}

const ASCII_BORDER: symbols::border::Set = symbols::border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};
