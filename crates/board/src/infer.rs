//! Finding the board: candidate axes per relation, the check that each cell holds one content,
//! the choice among candidates, and the contents' owners, empty marker and labels.

use crate::order::Chains;
use crate::sample::{Budget, Samples};
use crate::{Axis, Board, Inference, Lines, Piece, MAX_AXES};
use gdl::Description;
use machine::{MachineError, StateMachine};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// The seed of the sampling games, so that a game is always read the same way.
const SEED: u64 = 0x6c61_7463_686b_6579;

/// A share of the movers that bring a content onto the board that must be one role for it to
/// be that role's, and how often it must have been seen arriving.
const OWNER_SHARE: f64 = 0.8;
const OWNER_SEEN: usize = 3;

/// How many cells on average the empty marker covers at least, as a share of the board.
const EMPTY_SHARE: f64 = 0.25;

/// The board of the game `desc` describes, run on `m`, from the states of random games within
/// `budget`.
pub fn infer<M: StateMachine>(desc: &Description, m: &mut M, budget: Budget) -> Result<Inference, MachineError> {
    let samples = Samples::collect(m, budget, SEED)?;
    Ok(infer_from(desc, m.roles(), &samples))
}

/// The board `samples` of the game `desc` (with `roles`) show.
pub fn infer_from(desc: &Description, roles: &[String], samples: &Samples) -> Inference {
    let chains = Chains::of(desc);
    let parsed: Vec<Vec<&str>> = samples.props.iter().map(|p| propnet::net::name_parts(p)).collect();
    let mut groups: BTreeMap<(&str, usize), Vec<u32>> = BTreeMap::new();
    for (id, parts) in parsed.iter().enumerate() {
        if parts.len() > 1 {
            groups.entry((parts[0], parts.len() - 1)).or_default().push(id as u32);
        }
    }
    let mut best: Option<(Candidate, Preference)> = None;
    let mut seen = Vec::new();
    let mut edges = Vec::new();
    for (&(relation, arity), members) in &groups {
        let domain = |i: usize| members.iter().map(|&p| parsed[p as usize][i + 1]).collect::<BTreeSet<&str>>();
        let axes: Vec<Axis> = (0..arity)
            .filter_map(|i| chains.order(&domain(i)).map(|(order, values)| Axis { argument: i, order, values }))
            .collect();
        if axes.is_empty() {
            continue;
        }
        seen.push(relation);
        if let Some(points) = joins_neighbours(&chains, &axes, members, &parsed) {
            edges.push((relation, points));
            continue;
        }
        // Every choice of up to four of the ordered arguments, in argument order.
        let ordered = &axes[..axes.len().min(8)];
        let choices = (1u32..1 << ordered.len())
            .filter(|mask| mask.count_ones() as usize <= MAX_AXES)
            .map(|mask| (0..ordered.len()).filter(|i| mask & (1 << i) != 0).map(|i| &ordered[i]).collect::<Vec<_>>());
        for chosen in choices {
            let candidate = Candidate {
                relation,
                arity,
                axes: chosen.into_iter().cloned().collect(),
                members: members.iter().copied().collect(),
            };
            let Some((per_state, most)) = candidate.occupancy(samples, &parsed) else { continue };
            if !candidate.plausible(per_state) {
                continue;
            }
            // A board holds one content per cell where one can be found: several on a cell
            // (a knight and an arrow) are taken only where no board of single contents is. It
            // says what stands on its cells where it can, and has as many axes as it needs:
            // sudoku's (cell x y v) is a board of digits, not a cube of marks.
            let has_contents = !candidate.contents().is_empty();
            let single = most == 1;
            let key = (
                has_contents,
                single,
                candidate.axes.len(),
                (per_state * 1000.0) as u64,
                Reverse(candidate.arguments()),
            );
            if best.as_ref().is_none_or(|(_, k)| key > *k) {
                best = Some((candidate, key));
            }
        }
    }
    if best.is_none() && !edges.is_empty() {
        let names: Vec<&str> = edges.iter().map(|(relation, _)| *relation).collect();
        return Inference::Fallback {
            why: format!("{} joins neighbouring points: lines, but no board of cells holds them", names.join(", ")),
        };
    }
    match best {
        Some((c, key)) => {
            let mut board = c.board(roles, samples, &parsed, !key.1);
            board.lines = edges.into_iter().filter_map(|(relation, points)| lines_on(&board, relation, points)).collect();
            board.hex = crate::hex::lean(desc, &board);
            Inference::Board(board)
        }
        None if seen.is_empty() => Inference::Fallback {
            why: "no base relation has an argument whose values the game orders (whole numbers, or a chain of facts like succ)".into(),
        },
        None => Inference::Fallback {
            why: format!(
                "{} {} ordered arguments, but none holds one content per cell on a board of four cells or more in every state sampled",
                seen.join(", "),
                if seen.len() == 1 { "has" } else { "have" }
            ),
        },
    }
}

/// How much a candidate is preferred, most first: whether each cell holds one content, whether
/// it has contents, its axes, its propositions per state (in thousandths), and its axes'
/// arguments, earliest first.
type Preference = (bool, bool, usize, u64, Reverse<Vec<usize>>);

/// The most contents a cell of a board holds in any state sampled.
const MAX_STACK: usize = 3;

/// The lines of `relation`, whose points range over `points` (columns' values, rows' values),
/// where they fit `board`: its two axes in the same order, the points either its cells'
/// centres (the same values) or their corners (one value more, after the cells' own).
fn lines_on(board: &Board, relation: &str, points: [Vec<String>; 2]) -> Option<Lines> {
    let [columns, rows] = board.axes.as_slice() else { return None };
    let [xs, ys] = &points;
    let fits = |axis: &Axis, values: &Vec<String>| {
        if *values == axis.values {
            Some(false)
        } else {
            (values.len() == axis.values.len() + 1 && values.starts_with(&axis.values)).then_some(true)
        }
    };
    let corners = fits(columns, xs)?;
    (fits(rows, ys)? == corners).then(|| Lines { relation: relation.to_owned(), points, corners })
}

/// Whether a relation's propositions are lines between neighbouring points: four ordered
/// arguments, the first and third in the same order, the second and fourth too, and every
/// proposition seen joining two points one step apart, straight or diagonally (dots and boxes'
/// `(line x1 y1 x2 y2)`, crossers' walls). Such a relation is not a board of cells: three of
/// its arguments would pass for axes and the fourth for what stands there. Where it is, the
/// points' values along each axis, in order.
fn joins_neighbours(chains: &Chains, axes: &[Axis], members: &[u32], parsed: &[Vec<&str>]) -> Option<[Vec<String>; 2]> {
    let [a, b, c, d] = axes else { return None };
    if (a.argument, b.argument, c.argument, d.argument) != (0, 1, 2, 3) || a.order != c.order || b.order != d.order {
        return None;
    }
    // The points' coordinates, each pair of axes ordered as one.
    let line = |p: &Axis, q: &Axis| {
        let values: BTreeSet<&str> = p.values.iter().chain(&q.values).map(String::as_str).collect();
        chains.order(&values).map(|(_, ordered)| ordered)
    };
    let (Some(xs), Some(ys)) = (line(a, c), line(b, d)) else { return None };
    let at = |values: &[String], value: &str| values.iter().position(|v| v == value).map(|i| i as i64);
    let neighbours = members.iter().all(|&p| {
        let args = &parsed[p as usize][1..];
        let (Some(x1), Some(y1), Some(x2), Some(y2)) =
            (at(&xs, args[0]), at(&ys, args[1]), at(&xs, args[2]), at(&ys, args[3]))
        else {
            return false;
        };
        (x1 - x2).abs().max((y1 - y2).abs()) == 1
    });
    neighbours.then_some([xs, ys])
}

/// A relation with a choice of axes.
struct Candidate<'a> {
    relation: &'a str,
    arity: usize,
    axes: Vec<Axis>,
    members: BTreeSet<u32>,
}

impl Candidate<'_> {
    /// The arguments that are axes.
    fn arguments(&self) -> Vec<usize> {
        self.axes.iter().map(|a| a.argument).collect()
    }

    /// The arguments that are not.
    fn contents(&self) -> Vec<usize> {
        (0..self.arity).filter(|i| !self.arguments().contains(i)).collect()
    }

    /// The cells the board has.
    fn cells(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    /// The relation's propositions true per sampled state on average and the most contents a
    /// cell holds in any state; `None` where a cell holds more than [`MAX_STACK`], or more than
    /// one on a board without contents or of other than two axes.
    fn occupancy(&self, samples: &Samples, parsed: &[Vec<&str>]) -> Option<(f64, usize)> {
        let axes = self.arguments();
        let contents = self.contents();
        let mut total = 0usize;
        let mut most = 1;
        let mut cells: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
        for state in &samples.states {
            cells.clear();
            for &p in state.iter().filter(|p| self.members.contains(p)) {
                let args = &parsed[p as usize][1..];
                cells.push((axes.iter().map(|&i| args[i]).collect(), contents.iter().map(|&i| args[i]).collect()));
            }
            total += cells.len();
            cells.sort_unstable();
            for run in cells.chunk_by(|a, b| a.0 == b.0) {
                most = most.max(run.len());
            }
        }
        let stackable = self.axes.len() == 2 && !contents.is_empty();
        if most > MAX_STACK || (most > 1 && !stackable) {
            return None;
        }
        Some((total as f64 / samples.states.len().max(1) as f64, most))
    }

    /// Whether the candidate looks like a board: four cells or more, and some of them
    /// occupied on average; a single axis needs contents and three occupied cells on average,
    /// so that a counter such as `(step 3)` or a score is never taken for a row.
    fn plausible(&self, per_state: f64) -> bool {
        match self.axes.len() {
            1 => !self.contents().is_empty() && self.cells() >= 3 && per_state >= 3.0,
            _ => self.cells() >= 4 && per_state >= 1.0 && self.axes.iter().all(|a| a.values.len() >= 2),
        }
    }

    /// The board, its contents told apart; `stacked` where a cell may hold several.
    fn board(self, roles: &[String], samples: &Samples, parsed: &[Vec<&str>], stacked: bool) -> Board {
        let contents = self.contents();
        let content_of = |p: u32| crate::content(&parsed[p as usize][1..], &contents);
        // Per content, how many cells it covers over all states, and per role how often that
        // role alone chose the joint move that brought it onto a cell.
        let mut covered: BTreeMap<String, usize> = BTreeMap::new();
        let mut written = BTreeSet::new();
        for state in &samples.states {
            let mut cells = 0;
            for &p in state.iter().filter(|p| self.members.contains(p)) {
                *covered.entry(content_of(p)).or_default() += 1;
                cells += 1;
            }
            written.insert(cells);
        }
        let mut arrivals: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for step in samples.steps.iter().filter(|s| s.choosers.len() == 1 && roles.len() > 1) {
            let before = &samples.states[step.from];
            for &p in samples.states[step.to].iter().filter(|p| self.members.contains(p)) {
                if before.binary_search(&p).is_err() {
                    arrivals.entry(content_of(p)).or_insert_with(|| vec![0; roles.len()])[step.choosers[0]] += 1;
                }
            }
        }
        let owner = |content: &str| {
            let named: BTreeSet<usize> =
                tokens(content).filter_map(|t| roles.iter().position(|r| r.eq_ignore_ascii_case(t))).collect();
            if named.len() == 1 {
                return named.first().copied();
            }
            let counts = arrivals.get(content)?;
            let total: usize = counts.iter().sum();
            let (role, &most) = counts.iter().enumerate().max_by_key(|&(_, n)| *n)?;
            (total >= OWNER_SEEN && most as f64 >= OWNER_SHARE * total as f64).then_some(role)
        };
        let states = samples.states.len().max(1) as f64;
        let cells = self.cells() as f64;
        let mut pieces: Vec<Piece> = covered
            .keys()
            .map(|content| {
                let owner = owner(content);
                Piece { content: content.clone(), label: label(content, owner, roles), owner }
            })
            .collect();
        // Rules that write an empty marker write every cell in every state; where the cells
        // written come and go, an empty cell is one not written, and what covers many cells late
        // in a game is a piece (amazons' arrows). One player's pieces have no owner to tell them
        // from an empty marker (peg solitaire's pegs cover most holes): a one-role board shows
        // every content.
        let every_cell_written = written.len() == 1;
        let empty = pieces
            .iter()
            .filter(|p| p.owner.is_none() && roles.len() > 1 && every_cell_written)
            .map(|p| (covered[&p.content], &p.content))
            .max()
            .filter(|&(n, _)| n as f64 / states >= EMPTY_SHARE * cells)
            .map(|(_, c)| c.clone());
        distinct_labels(&mut pieces, roles);
        Board {
            relation: self.relation.to_owned(),
            arity: self.arity,
            axes: drawn(self.axes),
            contents,
            empty,
            pieces,
            stacked,
            lines: Vec::new(),
            hex: None,
            roles: roles.to_vec(),
        }
    }
}

/// The axes in the order they are drawn: as the arguments come, except that of three axes where
/// two range over the same values and one does not, that one goes last, to be the layers
/// (pentago's `(cellholds quadrant x y colour)`: four quadrants of three by three).
fn drawn(mut axes: Vec<Axis>) -> Vec<Axis> {
    if let [a, b, c] = axes.as_slice() {
        let odd = match (a.values == b.values, a.values == c.values, b.values == c.values) {
            (false, false, true) => Some(0),
            (false, true, false) => Some(1),
            _ => None,
        };
        if let Some(i) = odd {
            let layer = axes.remove(i);
            axes.push(layer);
        }
    }
    axes
}

/// The words of a content: its constants, function names included.
fn tokens(content: &str) -> impl Iterator<Item = &str> {
    content.split(['(', ')', ' ']).filter(|t| !t.is_empty())
}

/// The words of `content` that say what it is besides whose: its tokens, without the owner's
/// name `role`, written alone or run into a word (`blackbishop`: `bishop`).
fn words<'a>(content: &'a str, role: Option<&'a str>) -> impl Iterator<Item = &'a str> {
    tokens(content).filter_map(move |t| {
        let Some(role) = role.filter(|r| !r.is_empty()) else { return Some(t) };
        let rest = t.strip_prefix(role).or_else(|| t.strip_suffix(role)).unwrap_or(t);
        let rest = rest.trim_matches(|c: char| c == '_' || c == '-');
        (!rest.is_empty()).then_some(rest)
    })
}

/// One or two characters for `content` owned by `owner` among `roles`: a content of at most
/// two characters as it is; one named after its owner by the owner's initial (`white`: `W`);
/// otherwise the initials of its words other than the owner's name, in upper case for the first
/// role and lower case for the others (`white rook`: `R`, `black rook`: `r`).
pub(crate) fn label(content: &str, owner: Option<usize>, roles: &[String]) -> String {
    if content.chars().count() <= 2 {
        return content.to_owned();
    }
    let role = owner.map(|o| roles[o].as_str());
    let rest: Vec<&str> = words(content, role).collect();
    let initials: String = match rest.as_slice() {
        [] => {
            return role.and_then(|r| r.chars().next()).map(|c| c.to_ascii_uppercase().to_string()).unwrap_or_default()
        }
        [one] => one.chars().take(1).collect(),
        words => words.iter().filter_map(|w| w.chars().next()).take(2).collect(),
    };
    match owner {
        Some(0) => initials.to_uppercase(),
        Some(_) => initials.to_lowercase(),
        None => initials,
    }
}

/// Makes every label distinct: where contents share one, each gets what tells it apart from
/// the others where that is four characters or fewer; else the first two characters of its first
/// word other than its owner's name (capitalised for the first role, in lower case for the
/// others: `Kn`, `kn`, `Ki`, `ki`); and where they still collide, its number among the pieces.
fn distinct_labels(pieces: &mut [Piece], roles: &[String]) {
    let clashes =
        |pieces: &[Piece], i: usize| pieces.iter().enumerate().any(|(j, p)| j != i && p.label == pieces[i].label);
    // Contents whose labels clash, whoever owns them, are first labelled group by group by what
    // tells them apart where that is short (quarto's p0000 … p1111 as 0000 … 1111).
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for i in (0..pieces.len()).filter(|&i| clashes(pieces, i)) {
        groups.entry(pieces[i].label.to_lowercase()).or_default().push(i);
    }
    for group in groups.values() {
        let middles = differences(group.iter().map(|&i| pieces[i].content.as_str()));
        let short =
            middles.iter().all(|m| (1..=4).contains(&m.chars().count()) && m.chars().all(char::is_alphanumeric));
        if short && middles.iter().collect::<BTreeSet<_>>().len() == middles.len() {
            for (&i, middle) in group.iter().zip(middles) {
                pieces[i].label = middle;
            }
        }
    }
    // Then by the first two letters of their first word other than the owner's name; then all
    // but the last of a clash are numbered.
    let clashing: Vec<usize> = (0..pieces.len()).filter(|&i| clashes(pieces, i)).collect();
    for &i in &clashing {
        let p = &pieces[i];
        let role = p.owner.map(|o| roles[o].as_str());
        let word = words(&p.content, role).next().or(role).unwrap_or(&p.content);
        let two: String = word.chars().take(2).collect();
        pieces[i].label = match p.owner {
            Some(0) => two.chars().take(1).flat_map(char::to_uppercase).chain(two.chars().skip(1)).collect(),
            Some(_) => two.to_lowercase(),
            None => two,
        };
    }
    for i in 0..pieces.len() {
        if clashes(pieces, i) {
            pieces[i].label = (i + 1).to_string();
        }
    }
}

/// What is left of each of `texts` once the characters all of them begin with and all of them
/// end with are taken away.
fn differences<'a>(texts: impl Iterator<Item = &'a str>) -> Vec<String> {
    let texts: Vec<Vec<char>> = texts.map(|t| t.chars().collect()).collect();
    let shortest = texts.iter().map(Vec::len).min().unwrap_or(0);
    let same = |at: &dyn Fn(&Vec<char>) -> char| texts.iter().all(|t| at(t) == at(&texts[0]));
    let prefix = (0..shortest).take_while(|&k| same(&|t| t[k])).count();
    let suffix = (0..shortest - prefix).take_while(|&k| same(&|t| t[t.len() - 1 - k])).count();
    texts.iter().map(|t| t[prefix..t.len() - suffix].iter().collect()).collect()
}
