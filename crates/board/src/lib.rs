//! Boards read from a game's rules, for games nobody labelled.
//!
//! A board is a base relation some of whose arguments are coordinates: their values fall in an
//! order the game itself gives ([`Order`]: whole numbers, or a static relation that chains them
//! like `succ`), and in every state sampled each cell holds at most one content (the remaining
//! arguments). Of the relations that qualify, the one with two axes and the most propositions
//! true per state is the board; its contents are told apart into pieces, each with the role it
//! belongs to where the rules name that role in it or only that role's moves bring it onto the
//! board, and the empty marker, the unowned content that covers the most cells. Everything else
//! true in a state (whose turn, counters, scores) is a panel beside the board. Where no relation
//! qualifies, [`Inference::Fallback`] says why, and the state is shown as its propositions grouped
//! by relation: a wrong board would be worse than none.

mod hex;
mod infer;
mod order;
mod render;
mod sample;
mod svg;

pub use hex::Lean;
pub use infer::{infer, infer_from};
pub use order::{Chains, Order};
pub use render::{text, Style};
pub use sample::{Budget, Samples, Step};
pub use svg::{escape, svg, COLOURS};

/// The most axes a board has.
pub const MAX_AXES: usize = 4;

use serde::Serialize;

/// One axis of a board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Axis {
    /// Which argument of the board relation it is (from 0).
    pub argument: usize,
    /// How its values are ordered.
    pub order: Order,
    /// Its values in that order: columns left to right, rows bottom to top.
    pub values: Vec<String>,
}

/// What can stand on a cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Piece {
    /// The content arguments in canonical KIF, joined by spaces: `white`, `white rook`.
    pub content: String,
    /// One or two characters for it on a text board.
    pub label: String,
    /// The role it belongs to (an index into the roles), where that is known.
    pub owner: Option<usize>,
}

/// A board found in the rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    /// The base relation that is the board, e.g. `cell`.
    pub relation: String,
    /// Its number of arguments.
    pub arity: usize,
    /// The axes, one to four: columns, then rows; with three, the layers drawn side by side;
    /// with four, a board of boards: the outer board's columns and rows, then each inner
    /// board's.
    pub axes: Vec<Axis>,
    /// The arguments that say what stands on a cell; none where a cell is only occupied or not.
    pub contents: Vec<usize>,
    /// The content that marks an empty cell, where the rules write one.
    pub empty: Option<String>,
    /// Every content seen on the board.
    pub pieces: Vec<Piece>,
    /// Whether a cell may hold several contents at once (up to three: a knight and an arrow);
    /// taken only where no board holds one content per cell.
    pub stacked: bool,
    /// Relations of lines between neighbouring points drawn on the board (dots and boxes'
    /// lines, crossers' walls); they are listed in the text drawing's panel.
    pub lines: Vec<Lines>,
    /// Where the rules make each cell of a two-axis board a neighbour of six, a grid of
    /// hexagons: which way its rows lean.
    pub hex: Option<Lean>,
    /// The game's roles.
    pub roles: Vec<String>,
}

/// A relation of lines between neighbouring points, `(line x1 y1 x2 y2)`, that a board's
/// drawing shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lines {
    /// The relation.
    pub relation: String,
    /// The points' values along the columns' axis and along the rows', in order.
    pub points: [Vec<String>; 2],
    /// Whether the points are the cells' corners (one value more than the cells along each
    /// axis: dots and boxes), not their centres (crossers).
    pub corners: bool,
}

/// What inference found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Inference {
    /// A board.
    Board(Board),
    /// No board: states are shown as their propositions grouped by relation.
    Fallback {
        /// Why no board was taken.
        why: String,
    },
}

impl Inference {
    /// The board, where one was found.
    pub fn board(&self) -> Option<&Board> {
        match self {
            Inference::Board(b) => Some(b),
            Inference::Fallback { .. } => None,
        }
    }
}

/// A state as a board shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct View {
    /// The cells that are not empty, in the order of their propositions.
    pub cells: Vec<Placed>,
    /// The rest of the state: per relation, the arguments of each of its true propositions.
    pub panel: Vec<(String, Vec<String>)>,
}

/// What stands on one cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placed {
    /// The cell's coordinates, one value per axis.
    pub at: Vec<String>,
    /// What stands there.
    pub content: String,
    /// The coordinates as positions along the axes.
    #[serde(skip)]
    pub index: Vec<usize>,
}

impl View {
    /// What stands on the cell at `index` (a position along each axis), if anything: the first
    /// of its contents.
    pub fn content(&self, index: &[usize]) -> Option<&str> {
        self.cells.iter().find(|c| c.index == index).map(|c| c.content.as_str())
    }

    /// Everything that stands on the cell at `index`, in the order of its propositions.
    pub fn contents<'a>(&'a self, index: &'a [usize]) -> impl Iterator<Item = &'a str> + 'a {
        self.cells.iter().filter(move |c| c.index == index).map(|c| c.content.as_str())
    }
}

impl Board {
    /// The state whose true propositions are `props` (canonical KIF) on this board.
    pub fn view(&self, props: &[String]) -> View {
        let mut cells = Vec::new();
        let mut rest = Vec::new();
        for prop in props {
            match self.place(prop) {
                Some(placed) if self.empty.as_deref() == Some(placed.content.as_str()) => {}
                Some(placed) => cells.push(placed),
                None => rest.push(prop.clone()),
            }
        }
        View { cells, panel: panel(&rest) }
    }

    /// Where `prop` (canonical KIF) stands and what it is, if it is a proposition of the board
    /// at a cell it knows.
    pub fn place(&self, prop: &str) -> Option<Placed> {
        let parts = propnet::net::name_parts(prop);
        if parts.len() != self.arity + 1 || parts[0] != self.relation {
            return None;
        }
        let args = &parts[1..];
        let index = self
            .axes
            .iter()
            .map(|axis| axis.values.iter().position(|v| v == args[axis.argument]))
            .collect::<Option<Vec<usize>>>()?;
        let at = self.axes.iter().map(|axis| args[axis.argument].to_owned()).collect();
        Some(Placed { at, content: content(args, &self.contents), index })
    }

    /// The label of `content`: its piece's, or for a content never seen in sampling, one made
    /// the same way without an owner.
    pub fn label(&self, content: &str) -> String {
        match self.pieces.iter().find(|p| p.content == content) {
            Some(p) => p.label.clone(),
            None => infer::label(content, None, &self.roles),
        }
    }

    /// The owner of `content`, where it is a piece whose owner is known.
    pub fn owner(&self, content: &str) -> Option<usize> {
        self.pieces.iter().find(|p| p.content == content).and_then(|p| p.owner)
    }
}

/// What stands on a cell, from a board proposition's arguments `args`: its content arguments
/// (`contents`, positions in `args`) joined by spaces, `white rook`.
fn content(args: &[&str], contents: &[usize]) -> String {
    contents.iter().map(|&i| args[i]).collect::<Vec<_>>().join(" ")
}

/// How a person reads the proposition `prop` (canonical KIF) of a state: what stands on which
/// cell of `board` (`x on 1 3`, `1 3 empty`, `1 3 occupied` where a cell holds no content), or else its line in a panel (`control: xplayer`).
pub fn reading(board: Option<&Board>, prop: &str) -> String {
    if let Some((board, placed)) = board.and_then(|b| b.place(prop).map(|p| (b, p))) {
        let at = placed.at.join(" ");
        return match placed.content.as_str() {
            "" => format!("{at} occupied"),
            c if board.empty.as_deref() == Some(c) => format!("{at} empty"),
            c => format!("{c} on {at}"),
        };
    }
    match panel(&[prop.to_owned()]).pop() {
        Some((relation, args)) => panel_line(&relation, &args),
        None => prop.to_owned(),
    }
}

/// One line of a panel: the relation and its propositions' arguments, `control: white`, or the
/// relation alone where its propositions have none.
fn panel_line(relation: &str, args: &[String]) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.is_empty()).collect();
    match args.is_empty() {
        true => relation.to_owned(),
        false => format!("{relation}: {}", args.join(", ")),
    }
}

/// `props` (canonical KIF) grouped by relation, relations and arguments in the order given.
pub fn panel(props: &[String]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for prop in props {
        let parts = propnet::net::name_parts(prop);
        let relation = parts.first().copied().unwrap_or_default().to_owned();
        let args = parts[1.min(parts.len())..].join(" ");
        match groups.iter_mut().find(|(r, _)| *r == relation) {
            Some((_, list)) => list.push(args),
            None => groups.push((relation, vec![args])),
        }
    }
    groups
}
