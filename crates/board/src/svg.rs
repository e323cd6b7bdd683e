//! A state drawn as SVG: the same grids as the text drawing, cells shaded alternately, each
//! piece a disc in its owner's colour with its label, the axes' values beside the grids and the
//! rest of the state beneath. Every cell and piece carries its coordinates (`data-at`) and a
//! piece its content (`data-content`), for pages and tests that look for them.

use crate::render::{slices, Slice};
use crate::{panel, panel_line, Board, Lean, Lines, View};
use std::fmt::Write;

/// A cell's side, in pixels.
const CELL: usize = 40;
/// Room for the axes' values beside a grid, and between grids.
const MARGIN: usize = 30;
/// Height of a title above a grid, and of a line of the panel.
const LINE: usize = 20;
/// The roles' colours, by role, then again.
pub const COLOURS: [&str; 4] = ["#c62828", "#1565c0", "#2e7d32", "#f9a825"];

/// The state whose true propositions are `props` (canonical KIF), on `board` where there is
/// one, as a standalone SVG document.
pub fn svg(board: Option<&Board>, props: &[String]) -> String {
    let mut body = String::new();
    let (mut width, mut height) = (MARGIN, 0);
    let rest = match board {
        Some(board) => {
            let view = board.view(props);
            let slices = slices(board);
            let (across, down) = slices.iter().fold((0, 0), |(a, d), s| (a.max(s.place.0 + 1), d.max(s.place.1 + 1)));
            let rows = slices[0].size(board).1;
            let (wide, high) = extent(board, &slices[0]);
            let titled = usize::from(slices.iter().any(|s| s.title.is_some()));
            let block = (MARGIN + wide + MARGIN, titled * LINE + high + MARGIN + MARGIN / 2);
            // The cells, then the lines between them, then the pieces on top.
            let mut pieces = String::new();
            for slice in &slices {
                let x0 = MARGIN + slice.place.0 * block.0;
                let y0 = MARGIN / 2 + titled * LINE + slice.place.1 * block.1;
                grid(&mut body, &mut pieces, board, &view, slice, (x0, y0));
            }
            for lines in &board.lines {
                draw_lines(&mut body, lines, props, (MARGIN, MARGIN / 2), rows);
            }
            body.push_str(&pieces);
            width = across * block.0 + MARGIN;
            height = down * block.1;
            // Lines drawn on the board are not listed beneath it.
            view.panel.into_iter().filter(|(relation, _)| board.lines.iter().all(|l| l.relation != *relation)).collect()
        }
        None => panel(props),
    };
    for (relation, args) in rest {
        let line = panel_line(&relation, &args);
        height += LINE;
        text(&mut body, MARGIN, height, "start", "panel", &line);
        width = width.max(MARGIN * 2 + line.chars().count() * 8);
    }
    height += LINE / 2;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"14\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{body}</svg>\n"
    )
}

/// The grid `slice` of `view`, its top left cell at (`x0`, `y0`): its title above, each row's
/// value to its left, each column's beneath, the cells shaded alternately (on `body`), a disc on
/// each one not empty (on `pieces`, drawn last).
fn grid(body: &mut String, pieces: &mut String, board: &Board, view: &View, slice: &Slice, (x0, y0): (usize, usize)) {
    if let Some(title) = &slice.title {
        text(body, x0, y0 - 6, "start", "title", title);
    }
    let (columns, rows) = slice.size(board);
    let hex = hexagonal(board, slice);
    for top in 0..rows {
        let shift = slice.shift(board, top) * CELL / 2;
        if slice.rows.is_some() {
            let y = centre(hex, (x0, y0), 0, top).1 as usize + 5;
            text(body, x0 + shift - 6, y, "end", "axis", slice.row_name(board, top));
        }
        for column in 0..columns {
            let index = slice.index(board, top, column);
            let (x, y) = (x0 + shift + column * CELL, y0 + top * CELL);
            let at: Vec<&str> = index.iter().zip(&board.axes).map(|(&i, axis)| axis.values[i].as_str()).collect();
            let at = escape(&at.join(" "));
            let (cx, cy) = centre(hex, (x0 + shift, y0), column, top);
            match hex {
                // Three shades, so that no two neighbours share one.
                Some(lean) => {
                    let row = rows - 1 - top;
                    let shade = HEX_SHADES[(column + if lean == Lean::Right { 2 * row } else { row }) % 3];
                    let points: Vec<String> = (0..6)
                        .map(|k| {
                            let angle = std::f64::consts::PI / 3.0 * k as f64 + std::f64::consts::PI / 6.0;
                            format!("{:.1},{:.1}", cx + SIDE * angle.cos(), cy + SIDE * angle.sin())
                        })
                        .collect();
                    writeln!(body, r##"<polygon class="cell" data-at="{at}" points="{}" fill="{shade}" stroke="#9e9e9e"/>"##, points.join(" "))
                }
                None => {
                    let shade = if (rows - 1 - top + column) & 1 == 0 { "#e0e0e0" } else { "#f5f5f5" };
                    writeln!(body, r##"<rect class="cell" data-at="{at}" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{shade}" stroke="#9e9e9e"/>"##)
                }
            }
            .expect("writing to a string");
            // Several contents on a cell share it side by side, each a smaller disc.
            let contents: Vec<&str> = view.contents(&index).collect();
            let n = contents.len();
            for (k, content) in contents.into_iter().enumerate() {
                let fill = board.owner(content).map_or("#757575", |o| COLOURS[o % COLOURS.len()]);
                let (cx, cy, r) = (x + CELL * (2 * k + 1) / (2 * n), cy as usize, CELL * 2 / (5 * n).max(5));
                writeln!(pieces, r##"<g class="piece" data-at="{at}" data-content="{}"><circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" stroke="#212121"/>"##, escape(content))
                    .expect("writing to a string");
                text(pieces, cx, cy + 5, "middle", "label", &board.label(content));
                pieces.push_str("</g>\n");
            }
        }
    }
    let (bottom, y) = (slice.shift(board, rows - 1) * CELL / 2, y0 + extent(board, slice).1 + 16);
    for column in 0..columns {
        let x = x0 + bottom + column * CELL + CELL / 2;
        text(body, x, y, "middle", "axis", slice.column_name(board, column));
    }
}

/// A hexagon's side (and the distance from its centre to each corner), its width being a cell's.
const SIDE: f64 = CELL as f64 / 1.732_050_807_568_877_2;

/// The shades of a hexagonal board's cells.
const HEX_SHADES: [&str; 3] = ["#e0e0e0", "#f5f5f5", "#ebebeb"];

/// How `slice`'s rows lean where it is drawn as hexagons: a hexagonal board's grid of rows.
fn hexagonal(board: &Board, slice: &Slice) -> Option<Lean> {
    board.hex.filter(|_| slice.rows.is_some())
}

/// The centre of the cell in `column` of row `top` (counted from the top) of a grid of squares,
/// or of hexagons leaning `hex`, whose row's first cell has its top left at (`x0`, `y0`).
fn centre(hex: Option<Lean>, (x0, y0): (usize, usize), column: usize, top: usize) -> (f64, f64) {
    let x = (x0 + column * CELL + CELL / 2) as f64;
    match hex {
        // Rows of hexagons overlap by a quarter of a hexagon's height.
        Some(_) => (x, y0 as f64 + top as f64 * 1.5 * SIDE + SIDE),
        None => (x, (y0 + top * CELL + CELL / 2) as f64),
    }
}

/// The width and height of the grid `slice` drawn, in pixels, without the axes' values.
fn extent(board: &Board, slice: &Slice) -> (usize, usize) {
    let (columns, rows) = slice.size(board);
    match hexagonal(board, slice) {
        Some(_) => (columns * CELL + (rows - 1) * CELL / 2, (rows as f64 * 1.5 * SIDE + SIDE / 2.0).ceil() as usize),
        None => (columns * CELL, rows * CELL),
    }
}

/// The true propositions of `lines` among `props` as segments between points on a board of `rows`
/// rows whose top left cell is at (`x0`, `y0`), and where the points are the cells' corners, a
/// dot at every point. Each segment carries its ends (`data-from`, `data-to`).
fn draw_lines(body: &mut String, lines: &Lines, props: &[String], (x0, y0): (usize, usize), rows: usize) {
    let [xs, ys] = &lines.points;
    let (shift, up) = if lines.corners { (0, rows) } else { (CELL / 2, rows - 1) };
    let pixel = |i: usize, j: usize| (x0 + i * CELL + shift, y0 + (up - j) * CELL + shift);
    if lines.corners {
        for i in 0..xs.len() {
            for j in 0..ys.len() {
                let (x, y) = pixel(i, j);
                writeln!(body, r##"<circle class="point" cx="{x}" cy="{y}" r="3" fill="#212121"/>"##)
                    .expect("writing to a string");
            }
        }
    }
    let at = |values: &[String], v: &str| values.iter().position(|w| w == v);
    for prop in props {
        let parts = propnet::net::name_parts(prop);
        if parts.len() != 5 || parts[0] != lines.relation {
            continue;
        }
        let (Some(i1), Some(j1), Some(i2), Some(j2)) =
            (at(xs, parts[1]), at(ys, parts[2]), at(xs, parts[3]), at(ys, parts[4]))
        else {
            continue;
        };
        let ((xa, ya), (xb, yb)) = (pixel(i1, j1), pixel(i2, j2));
        let (from, to) = (escape(&format!("{} {}", parts[1], parts[2])), escape(&format!("{} {}", parts[3], parts[4])));
        writeln!(
            body,
            r##"<line class="line" data-from="{from}" data-to="{to}" x1="{xa}" y1="{ya}" x2="{xb}" y2="{yb}" stroke="#212121" stroke-width="4" stroke-linecap="round"/>"##
        )
        .expect("writing to a string");
    }
}

/// A text element at (`x`, `y`) anchored at `anchor`, of class `class`.
fn text(out: &mut String, x: usize, y: usize, anchor: &str, class: &str, content: &str) {
    let fill = if class == "label" { "white" } else { "#212121" };
    writeln!(
        out,
        r#"<text class="{class}" x="{x}" y="{y}" text-anchor="{anchor}" fill="{fill}">{}</text>"#,
        escape(content)
    )
    .expect("writing to a string");
}

/// `text` with XML's special characters escaped, for SVG text and attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
