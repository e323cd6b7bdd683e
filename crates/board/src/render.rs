//! A state drawn as text for a terminal: the board with its rows' and columns' values, then the
//! panel; without a board, the propositions grouped by relation.

use crate::{panel, panel_line, Board, View};
use std::fmt::Write;

/// How to draw.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// Colour each role's pieces (ANSI escapes).
    pub colour: bool,
}

/// ANSI colours of the roles' pieces, by role (bold red, bold blue, bold green, bold yellow,
/// then again).
const COLOURS: [&str; 4] = ["\x1b[1;31m", "\x1b[1;34m", "\x1b[1;32m", "\x1b[1;33m"];
const RESET: &str = "\x1b[0m";

/// The state whose true propositions are `props` (canonical KIF), on `board` where there is one.
pub fn text(board: Option<&Board>, props: &[String], style: Style) -> String {
    let mut out = String::new();
    let rest = match board {
        Some(board) => {
            let view = board.view(props);
            for line in draw(board, &view, style) {
                out.push_str(line.trim_end());
                out.push('\n');
            }
            view.panel
        }
        None => panel(props),
    };
    for (relation, args) in rest {
        out.push_str(&panel_line(&relation, &args));
        out.push('\n');
    }
    out
}

/// One grid of a drawing: two axes (or one) of the board, the others held fixed.
#[derive(Debug, Clone)]
pub(crate) struct Slice {
    /// The axes held, each at a position.
    pub fixed: Vec<(usize, usize)>,
    /// The axis across.
    pub columns: usize,
    /// The axis up, where there is one.
    pub rows: Option<usize>,
    /// Where the grid goes among the others: its column and its row, the top one first.
    pub place: (usize, usize),
    /// What heads it, where grids side by side need telling apart.
    pub title: Option<String>,
}

impl Slice {
    /// Its columns and rows (one row where it has no rows' axis).
    pub fn size(&self, board: &Board) -> (usize, usize) {
        (board.axes[self.columns].values.len(), self.rows.map_or(1, |r| board.axes[r].values.len()))
    }

    /// The position along every axis of the cell in its row `top` (counted from the top) and
    /// `column`.
    pub fn index(&self, board: &Board, top: usize, column: usize) -> Vec<usize> {
        let mut index = vec![0; board.axes.len()];
        for &(axis, at) in &self.fixed {
            index[axis] = at;
        }
        if let Some(r) = self.rows {
            index[r] = self.size(board).1 - 1 - top;
        }
        index[self.columns] = column;
        index
    }

    /// How many half cells its row `top` (counted from the top) is shifted right: none but on
    /// a hexagonal board.
    pub fn shift(&self, board: &Board, top: usize) -> usize {
        match (board.hex, self.rows) {
            (Some(lean), Some(_)) => {
                let rows = self.size(board).1;
                lean.shift(rows - 1 - top, rows)
            }
            _ => 0,
        }
    }

    /// The value heading its row `top` (counted from the top): empty where it has no rows' axis.
    pub fn row_name<'b>(&self, board: &'b Board, top: usize) -> &'b str {
        self.rows.map_or("", |r| &board.axes[r].values[self.size(board).1 - 1 - top])
    }

    /// The value beneath its column `column`.
    pub fn column_name<'b>(&self, board: &'b Board, column: usize) -> &'b str {
        &board.axes[self.columns].values[column]
    }
}

/// The grids a board is drawn as: one for one or two axes; for three, one per value of the third
/// side by side, each headed by that value; for four, the outer board's cells, each an inner
/// board, in the outer board's rows and columns.
pub(crate) fn slices(board: &Board) -> Vec<Slice> {
    let slice = |fixed, columns, rows, place, title| Slice { fixed, columns, rows, place, title };
    match board.axes.len() {
        1 => vec![slice(vec![], 0, None, (0, 0), None)],
        2 => vec![slice(vec![], 0, Some(1), (0, 0), None)],
        3 => (0..board.axes[2].values.len())
            .map(|z| slice(vec![(2, z)], 0, Some(1), (z, 0), Some(board.axes[2].values[z].clone())))
            .collect(),
        _ => {
            let (columns, rows) = (board.axes[0].values.len(), board.axes[1].values.len());
            let top_first = (0..rows).rev().enumerate();
            top_first
                .flat_map(|(k, row)| (0..columns).map(move |column| (k, row, column)))
                .map(|(k, row, column)| slice(vec![(0, column), (1, row)], 2, Some(3), (column, k), None))
                .collect()
        }
    }
}

/// The board's lines: its grids side by side, rows of grids a blank line apart.
fn draw(board: &Board, view: &View, style: Style) -> Vec<String> {
    let labels = view.cells.iter().map(|c| cell_label(board, view.contents(&c.index)).0.chars().count());
    let values = board.axes.iter().flat_map(|a| &a.values).map(|v| v.chars().count());
    let width = labels.chain(values).max().unwrap_or(1);
    let slices = slices(board);
    let block_rows = slices.iter().map(|s| s.place.1 + 1).max().unwrap_or(0);
    let mut lines = Vec::new();
    for k in 0..block_rows {
        let blocks: Vec<Vec<String>> = slices
            .iter()
            .filter(|s| s.place.1 == k)
            .map(|s| {
                let mut block = grid(board, view, s, width, style);
                if let Some(title) = &s.title {
                    let wide = visible(&block[block.len() - 1]);
                    block.insert(0, format!("{title:<wide$}"));
                }
                block
            })
            .collect();
        if k > 0 {
            lines.push(String::new());
        }
        lines.extend(beside(&blocks));
    }
    lines
}

/// The grid of `view` that `slice` is: each row, the top one first, headed by its value, a dot
/// for an empty cell, and the columns' values beneath, every line equally wide.
fn grid(board: &Board, view: &View, slice: &Slice, width: usize, style: Style) -> Vec<String> {
    let (columns, rows) = slice.size(board);
    let margin = (0..rows).map(|top| slice.row_name(board, top).chars().count()).max().unwrap_or(0);
    // A hexagonal board's rows are shifted by half a cell each.
    let indent = |top: usize| " ".repeat(slice.shift(board, top) * (width + 1) / 2);
    let mut lines = Vec::new();
    for top in 0..rows {
        let mut line = format!("{:>margin$} {}", slice.row_name(board, top), indent(top));
        for column in 0..columns {
            let index = slice.index(board, top, column);
            let (text, owner) = cell_label(board, view.contents(&index));
            let text = if text.is_empty() { ".".to_owned() } else { text };
            match owner.filter(|_| style.colour) {
                Some(o) => write!(line, " {}{text:>width$}{RESET}", COLOURS[o % COLOURS.len()]),
                None => write!(line, " {text:>width$}"),
            }
            .expect("writing to a string");
        }
        lines.push(line);
    }
    let mut foot = format!("{:margin$} {}", "", indent(rows - 1));
    for column in 0..columns {
        write!(foot, " {:>width$}", slice.column_name(board, column)).expect("writing to a string");
    }
    lines.push(foot);
    lines
}

/// A cell's text: the labels of its contents joined by `/` (empty for an empty cell), and the
/// owner to colour it by, where every content there has the same one.
fn cell_label<'a>(board: &Board, contents: impl Iterator<Item = &'a str>) -> (String, Option<usize>) {
    let contents: Vec<&str> = contents.collect();
    let labels: Vec<String> = contents.iter().map(|c| board.label(c)).collect();
    let owners: Vec<Option<usize>> = contents.iter().map(|c| board.owner(c)).collect();
    let owner = owners.first().copied().flatten().filter(|o| owners.iter().all(|p| *p == Some(*o)));
    (labels.join("/"), owner)
}

/// Blocks of lines side by side, three spaces apart, each padded to its widest line.
fn beside(blocks: &[Vec<String>]) -> Vec<String> {
    let height = blocks.iter().map(Vec::len).max().unwrap_or(0);
    (0..height)
        .map(|k| {
            let parts: Vec<String> = blocks
                .iter()
                .map(|b| {
                    let wide = b.iter().map(|l| visible(l)).max().unwrap_or(0);
                    let line = b.get(k).map_or("", String::as_str);
                    format!("{line}{}", " ".repeat(wide - visible(line)))
                })
                .collect();
            parts.join("   ")
        })
        .collect()
}

/// The characters of `line` a terminal shows: without its colour escapes.
fn visible(line: &str) -> usize {
    let mut count = 0;
    let mut escape = false;
    for c in line.chars() {
        match (escape, c) {
            (false, '\x1b') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, _) => count += 1,
        }
    }
    count
}
