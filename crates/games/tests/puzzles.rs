//! The optimal solution lengths the sliding-tile puzzles state in their headers, checked on a
//! plain model of the puzzle that shares nothing with the engines: the start board is read
//! from the `init` facts, and the distance to the solved board found by breadth-first search
//! (3×3) or iterative-deepening A* with the Manhattan-distance bound (4×4).

use std::collections::HashMap;

/// A board, row by row; 0 is the blank.
type Board = Vec<u8>;

/// The start board of a bundled puzzle on an `n`×`n` board, from its `(init (cell R C T))` facts.
fn start(name: &str, n: usize) -> Board {
    let text = games::find(name).expect("bundled").text;
    let mut board = vec![u8::MAX; n * n];
    for line in text.lines().filter_map(|l| l.trim().strip_prefix("(init (cell ")) {
        let fields: Vec<&str> = line.trim_end_matches(')').split_whitespace().collect();
        let [row, col, tile] = fields[..] else { panic!("bad init line {line}") };
        let cell = (row.parse::<usize>().expect("row") - 1) * n + col.parse::<usize>().expect("col") - 1;
        board[cell] = if tile == "b" { 0 } else { tile.parse().expect("tile") };
    }
    let mut sorted = board.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..(n * n) as u8).collect::<Vec<_>>(), "{name} starts with every tile once");
    board
}

/// The solved board: tiles in order, blank last.
fn solved(n: usize) -> Board {
    (1..(n * n) as u8).chain([0]).collect()
}

/// The boards one move away, with the cell the blank moved to.
fn moves(board: &Board, n: usize) -> Vec<(Board, usize)> {
    let blank = board.iter().position(|&t| t == 0).expect("a blank");
    let (row, col) = (blank / n, blank % n);
    let mut out = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
        let (r, c) = (row as isize + dr, col as isize + dc);
        if (0..n as isize).contains(&r) && (0..n as isize).contains(&c) {
            let cell = r as usize * n + c as usize;
            let mut next = board.clone();
            next.swap(blank, cell);
            out.push((next, cell));
        }
    }
    out
}

#[test]
fn the_eight_puzzle_start_needs_exactly_20_moves() {
    let goal = solved(3);
    let mut dist: HashMap<Board, u32> = HashMap::from([(goal.clone(), 0)]);
    let mut frontier = vec![goal];
    let mut depth = 0;
    while !frontier.is_empty() {
        depth += 1;
        let mut next = Vec::new();
        for board in &frontier {
            for (b, _) in moves(board, 3) {
                dist.entry(b.clone()).or_insert_with(|| {
                    next.push(b);
                    depth
                });
            }
        }
        frontier = next;
    }
    assert_eq!(dist.len(), 181_440, "half of the 9! boards are reachable");
    assert_eq!(dist.get(&start("eightpuzzle", 3)), Some(&20));
}

/// The sum over tiles of their row and column distance from home: a lower bound on the moves,
/// since a move shifts one tile by one cell.
fn manhattan(board: &Board, n: usize) -> u32 {
    let home = |t: u8| (t as usize - 1) / n * n + (t as usize - 1) % n;
    let dist = |a: usize, b: usize| (a / n).abs_diff(b / n) + (a % n).abs_diff(b % n);
    board.iter().enumerate().filter(|&(_, &t)| t != 0).map(|(cell, &t)| dist(cell, home(t)) as u32).sum()
}

/// Depth-first search below `board` within `bound` moves in all; the smallest bound exceeded
/// on failure. `back` is the cell the blank just left, which would undo the last move.
fn ida(board: &Board, n: usize, g: u32, bound: u32, back: Option<usize>) -> Result<u32, u32> {
    let h = manhattan(board, n);
    if g + h > bound {
        return Err(g + h);
    }
    if h == 0 {
        return Ok(g);
    }
    let blank = board.iter().position(|&t| t == 0);
    let mut exceeded = u32::MAX;
    for (next, cell) in moves(board, n) {
        if Some(cell) != back {
            match ida(&next, n, g + 1, bound, blank) {
                Ok(length) => return Ok(length),
                Err(f) => exceeded = exceeded.min(f),
            }
        }
    }
    Err(exceeded)
}

#[test]
fn the_fifteen_puzzle_start_needs_exactly_40_moves() {
    let board = start("fifteenpuzzle", 4);
    let mut bound = manhattan(&board, 4);
    let length = loop {
        match ida(&board, 4, 0, bound, None) {
            Ok(length) => break length,
            Err(next) => bound = next,
        }
    };
    assert_eq!(length, 40);
}
