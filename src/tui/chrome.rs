//! The frame around panes: bordered blocks, the active pane highlighted, ASCII in ASCII mode.

use ratatui::symbols;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders};

use crate::tui::ctx::Ctx;
use crate::tui::panes::ActivePane;
use crate::tui::theme::Theme;

/// A bordered block, highlighted when `pane` is the active pane.
pub fn pane_block<'a>(ctx: &Ctx, title: impl Into<Line<'a>>, pane: ActivePane) -> Block<'a> {
    bordered(ctx.theme)
        .border_style(ctx.theme.active_border(ctx.active == pane))
        .title(title)
}

/// A block with all borders, ASCII ones in ASCII mode.
pub fn bordered<'a>(theme: &Theme) -> Block<'a> {
    let b = Block::default().borders(Borders::ALL);
    if theme.ascii {
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
