//! Hexagonal boards. Where a relation the rules fix in every state is exactly the six-neighbour
//! adjacency of a two-axis board's cells (each cell a neighbour of the two beside it along each
//! axis and of the two along one diagonal, no more and no fewer), the board is a grid of hexagons,
//! each row shifted half a cell from the one below it. Hex's `(adjacent ?j ?k ?m ?n)` is such a
//! relation; a square board's adjacency (four or eight neighbours) is not.

use crate::Board;
use gdl::{Description, Rule, Sym};
use propnet::ground::{fixed_model, Limits};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Which way a hexagonal board's rows lean: each row further along the rows' axis (drawn
/// higher) is shifted half a cell further right, or further left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lean {
    /// A cell's diagonal neighbours are one column on and one row back, and one column back and
    /// one row on.
    Right,
    /// A cell's diagonal neighbours are one column and one row on, and one column and one row
    /// back.
    Left,
}

impl Lean {
    /// The diagonal step between neighbours, along the columns and along the rows.
    fn diagonal(self) -> (i64, i64) {
        match self {
            Lean::Right => (1, -1),
            Lean::Left => (1, 1),
        }
    }

    /// How many half cells the row at position `row` (from the first value) of `rows` is shifted
    /// right.
    pub fn shift(self, row: usize, rows: usize) -> usize {
        match self {
            Lean::Right => row,
            Lean::Left => rows - 1 - row,
        }
    }
}

/// The most arguments of a relation read as an adjacency: two cells' coordinates and up to two
/// more (a direction).
const MAX_ARITY: usize = 6;

/// How the rows of `board` lean where some relation of `desc` fixed in every state, projected on
/// four of its arguments (the first cell's column and row, the second's), is exactly the
/// six-neighbour adjacency of the board's cells; `None` where none is, or the board has other
/// than two axes or lines drawn on it.
pub fn lean(desc: &Description, board: &Board) -> Option<Lean> {
    let [columns, rows] = board.axes.as_slice() else { return None };
    if !board.lines.is_empty() {
        return None;
    }
    // Relations of four to six arguments that no chain of rules links to the state, each
    // computed from the rules it reads alone: a game's other tables (lists, counters) are left
    // out.
    let mut by_head: BTreeMap<Sym, Vec<&Rule>> = BTreeMap::new();
    for rule in &desc.rules {
        by_head.entry(rule.head.rel).or_default().push(rule);
    }
    let size = (columns.values.len(), rows.values.len());
    let wanted = [Lean::Right, Lean::Left].map(|lean| (lean, adjacency(size, lean)));
    let pairs = wanted[0].1.len();
    // Each relation is computed on its own, and given up once its tables pass a few times what
    // an adjacency of this board needs: the pairs of distinct cells of a big board are not
    // worth computing.
    let limits = Limits { max_atoms: 4 * pairs + 2000, ..Limits::default() };
    for (&name, rules) in &by_head {
        let arity = rules[0].head.args.len();
        if name.is_keyword() || !(4..=MAX_ARITY).contains(&arity) {
            continue;
        }
        let reads = reads(&by_head, name);
        if reads.contains(&Sym::TRUE) || reads.contains(&Sym::DOES) {
            continue;
        }
        let rules = reads.iter().filter_map(|rel| by_head.get(rel)).flatten().map(|&r| r.clone()).collect();
        let Ok(model) = fixed_model(&Description { file: desc.file.clone(), rules }, &limits) else { continue };
        let Some(rel) = model.relation(name) else { continue };
        let relation = &model.relations[rel as usize];
        // Every pair once, or, with more arguments (a direction), at least once.
        let count = relation.count as usize;
        if count < pairs || (arity == 4 && count != pairs) {
            continue;
        }
        // Each argument's position along the columns and along the rows, per tuple.
        let position = |axis: &crate::Axis, term| {
            let value = model.pool.to_string(term);
            axis.values.iter().position(|v| *v == value)
        };
        let at: Vec<Vec<(Option<usize>, Option<usize>)>> = (0..relation.count)
            .map(|i| relation.tuple(i).iter().map(|&t| (position(columns, t), position(rows, t))).collect())
            .collect();
        for [c1, r1, c2, r2] in choices(arity) {
            let found: Option<BTreeSet<Pair>> =
                at.iter().map(|t| Some(((t[c1].0?, t[r1].1?), (t[c2].0?, t[r2].1?)))).collect();
            if let Some((lean, _)) = found.and_then(|found| wanted.iter().find(|(_, cells)| *cells == found)) {
                return Some(*lean);
            }
        }
    }
    None
}

/// `name` and every relation its rules (`by_head`, by the relation they conclude) read, through
/// any chain of rules.
fn reads(by_head: &BTreeMap<Sym, Vec<&Rule>>, name: Sym) -> BTreeSet<Sym> {
    let mut found = BTreeSet::from([name]);
    let mut todo = vec![name];
    while let Some(rel) = todo.pop() {
        for rule in by_head.get(&rel).into_iter().flatten() {
            for literal in &rule.body {
                literal.for_each_atom(true, &mut |atom, _| {
                    if found.insert(atom.rel) {
                        todo.push(atom.rel);
                    }
                });
            }
        }
    }
    found
}

/// Two cells, each a column's and a row's position.
type Pair = ((usize, usize), (usize, usize));

/// Every pair of neighbouring cells, both ways round, of a hexagonal board of `size` (columns,
/// rows) leaning `lean`.
fn adjacency((columns, rows): (usize, usize), lean: Lean) -> BTreeSet<Pair> {
    let (dc, dr) = lean.diagonal();
    let steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (dc, dr), (-dc, -dr)];
    let mut pairs = BTreeSet::new();
    for c in 0..columns as i64 {
        for r in 0..rows as i64 {
            for (sc, sr) in steps {
                let (c2, r2) = (c + sc, r + sr);
                if (0..columns as i64).contains(&c2) && (0..rows as i64).contains(&r2) {
                    pairs.insert(((c as usize, r as usize), (c2 as usize, r2 as usize)));
                }
            }
        }
    }
    pairs
}

/// Every ordered choice of four distinct arguments of a relation of `arity`: the first cell's
/// column and row, then the second's.
fn choices(arity: usize) -> impl Iterator<Item = [usize; 4]> {
    let n = arity;
    (0..n)
        .flat_map(move |a| (0..n).flat_map(move |b| (0..n).flat_map(move |c| (0..n).map(move |d| [a, b, c, d]))))
        .filter(|k| (0..4).all(|i| (i + 1..4).all(|j| k[i] != k[j])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hex_cell_has_six_neighbours_inside_the_board() {
        let pairs = adjacency((3, 3), Lean::Right);
        let of = |cell| pairs.iter().filter(|(a, _)| *a == cell).count();
        assert_eq!(of((1, 1)), 6);
        // A corner on the short diagonal has three, one on the long diagonal two.
        assert_eq!(of((2, 0)), 3);
        assert_eq!(of((0, 0)), 2);
        assert!(pairs.contains(&((1, 1), (2, 0))) && !pairs.contains(&((1, 1), (2, 2))));
        let left = adjacency((3, 3), Lean::Left);
        assert!(left.contains(&((1, 1), (2, 2))) && !left.contains(&((1, 1), (2, 0))));
    }

    #[test]
    fn choices_are_distinct_arguments() {
        assert_eq!(choices(4).count(), 24);
        assert_eq!(choices(5).count(), 120);
        assert!(choices(5).all(|k| k.iter().collect::<BTreeSet<_>>().len() == 4));
    }
}
