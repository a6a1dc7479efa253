//! Styles and glyphs. Every distinction the graph makes (seed, recommended, dimmed,
//! selected) is carried by a glyph or a text attribute as well as by colour, so the screen
//! reads the same with `NO_COLOR`, on a monochrome terminal and in ASCII mode.

use ratatui::style::{Color, Modifier, Style};

/// How a node or edge relates to the current recommendation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// An edge whose score is below the threshold.
    Dimmed,
    /// Neither recommended nor below the threshold.
    Normal,
    /// Part of the recommended subgraph.
    Recommended,
}

/// Display settings chosen at start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
    pub ascii: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            color: true,
            ascii: false,
        }
    }
}

impl Theme {
    /// Applies `NO_COLOR` (set and non-empty) and the command-line switches.
    pub fn from_env(no_color: bool, ascii: bool) -> Theme {
        let env_off = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme {
            color: !(no_color || env_off),
            ascii,
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    pub fn edge(&self, level: Level) -> Style {
        match level {
            Level::Dimmed => self.fg(Color::DarkGray).add_modifier(Modifier::DIM),
            Level::Normal => self.fg(Color::Gray),
            Level::Recommended => self.fg(Color::Green).add_modifier(Modifier::BOLD),
        }
    }

    pub fn node(&self, level: Level, seed: bool) -> Style {
        match (seed, level) {
            (true, _) => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            (false, Level::Recommended) => self.fg(Color::Green).add_modifier(Modifier::BOLD),
            (false, _) => self.fg(Color::Reset),
        }
    }

    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// The edges of the selected node, along their whole route: a colour of their own, and
    /// underlined without colour (reverse video stays the inspector's edge cursor's).
    pub fn selected_edge(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
        }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn muted(&self) -> Style {
        self.fg(Color::DarkGray)
    }

    pub fn key(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn active_border(&self, active: bool) -> Style {
        if active {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            self.fg(Color::DarkGray)
        }
    }

    /// Marker shown before a node's name: `*` seed, `+` recommended, space otherwise.
    pub fn marker(seed: bool, recommended: bool) -> char {
        if seed {
            '*'
        } else if recommended {
            '+'
        } else {
            ' '
        }
    }

    pub fn glyphs(&self) -> &'static Glyphs {
        if self.ascii { &ASCII } else { &UNICODE }
    }
}

/// Characters for lines and boxes. Line glyphs are indexed by a 4-bit mask: up 1, down 2,
/// left 4, right 8.
#[derive(Debug)]
pub struct Glyphs {
    pub thin: [&'static str; 16],
    pub heavy: [&'static str; 16],
    /// Straight segments of dimmed edges: horizontal, vertical.
    pub dashed: [&'static str; 2],
    pub arrow_right: &'static str,
    pub arrow_down: &'static str,
    pub arrow_left: &'static str,
    pub arrow_up: &'static str,
    /// Box corners and sides: tl, tr, bl, br, horizontal, vertical.
    pub box_thin: [&'static str; 6],
    pub box_round: [&'static str; 6],
    pub box_heavy: [&'static str; 6],
    pub box_double: [&'static str; 6],
    pub ellipsis: &'static str,
}

const fn line_set(h: &'static str, v: &'static str, j: [&'static str; 10]) -> [&'static str; 16] {
    // j: dr, dl, ur, ul, vr, vl, hd, hu, cross, stub
    [
        j[9], v, v, v, h, j[3], j[1], j[5], h, j[2], j[0], j[4], h, j[7], j[6], j[8],
    ]
}

pub static UNICODE: Glyphs = Glyphs {
    thin: line_set("─", "│", ["┌", "┐", "└", "┘", "├", "┤", "┬", "┴", "┼", "·"]),
    heavy: line_set("━", "┃", ["┏", "┓", "┗", "┛", "┣", "┫", "┳", "┻", "╋", "·"]),
    dashed: ["╌", "╎"],
    arrow_right: "▶",
    arrow_down: "▼",
    arrow_left: "◀",
    arrow_up: "▲",
    box_thin: ["┌", "┐", "└", "┘", "─", "│"],
    box_round: ["╭", "╮", "╰", "╯", "─", "│"],
    box_heavy: ["┏", "┓", "┗", "┛", "━", "┃"],
    box_double: ["╔", "╗", "╚", "╝", "═", "║"],
    ellipsis: "…",
};

pub static ASCII: Glyphs = Glyphs {
    thin: line_set("-", "|", ["+", "+", "+", "+", "+", "+", "+", "+", "+", "."]),
    heavy: line_set("=", "#", ["#", "#", "#", "#", "#", "#", "#", "#", "#", "."]),
    dashed: [".", ":"],
    arrow_right: ">",
    arrow_down: "v",
    arrow_left: "<",
    arrow_up: "^",
    box_thin: ["+", "+", "+", "+", "-", "|"],
    box_round: ["(", ")", "(", ")", "-", "|"],
    box_heavy: ["#", "#", "#", "#", "=", "#"],
    box_double: ["@", "@", "@", "@", "=", "|"],
    ellipsis: "~",
};
