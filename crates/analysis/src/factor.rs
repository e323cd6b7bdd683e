//! Factorisation (the Sancho blog): games whose base propositions and moves split into
//! sub-games that cannot affect each other, once control logic is set aside.
//!
//! A split is only worth having where the goals and the terminal condition combine per factor,
//! so they join bases too: every disjunct of a goal or of the terminal condition (in
//! disjunctive normal form) joins the bases it reads, and the game ends or scores by one factor
//! or another, never by a condition spanning two (dual connect four ends when either board
//! does; in 3D tic-tac-toe, where each cell's moves touch that cell alone, the lines join every
//! cell into one factor).
//!
//! Control logic is every base no move can change: whose turn it is when turns simply
//! alternate, step counters, anything that evolves the same in every line of play. Those
//! bases are a function of the step alone, so a sub-game sees the same values of them whatever
//! is played elsewhere. The rest are joined through the moves: a move joins every base it may
//! change (its footprint, closed over what that change spreads to) with every base its legality
//! and its effects read. Both are over-approximations of what play can do, so two factors found
//! this way are truly independent: no move of one changes a base of the other or reads one.
//!
//! Moves that change and read nothing but control (a `noop`) belong to no factor: they are
//! passes, playable beside any factor. A factor neither the terminal condition nor any goal
//! reads is irrelevant: its moves only change bases nothing that matters ever looks at, so in
//! any state every one of them does to the game what a pass would. Where, besides, their
//! legality reads only control (so playing one never closes another), search needs one of them
//! at most ([`Factors::relevant_moves`]).
//!
//! Where no exact split exists, [`Factors::neighbourhoods`] looks for the approximate one the
//! blog describes: sub-games joined only through a few *shared* bases, such as a score tally
//! that play on either of two boards adds to. Each relation of the changeable bases small
//! enough to be such a link is tried in turn (smallest first): set aside like control, does
//! the rest split into neighbourhoods that each can score or end the game, none smaller than
//! the link? Play in one neighbourhood then changes no base of another, but may change the
//! shared bases the other reads or is scored by, so searching one as if it were a factor is an
//! approximation, never a claim the analysis makes about the game.

use crate::locality::dnf::Expander;
use crate::locality::{self, Locality};
use propnet::net::{Kind, Net, NodeId};
use rustc_hash::FxHashSet;
use serde::Serialize;
use std::time::Instant;
use structures::UnionFind;

/// Roles with more goal values than this join them all: trying each one as the complement of
/// the others costs a pass over every condition per value.
const MAX_GOAL_TRIALS: usize = 16;

/// A relation is tried as the link between neighbourhoods only if it holds at most this share
/// of the changeable bases: a link is a small part of the game.
const MAX_LINK_SHARE: f64 = 0.25;

/// A neighbourhood must hold at least this share of the changeable bases outside the link (and
/// no fewer than the link itself): a split that chips off a few cells is not one.
const MIN_NEIGHBOURHOOD_SHARE: f64 = 0.125;

/// One independent sub-game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Factor {
    /// Its base propositions (indices into the net's bases), sorted.
    pub bases: Vec<u32>,
    /// Its moves (indices into the net's moves), sorted.
    pub moves: Vec<u32>,
    /// Whether the terminal condition reads one of its bases.
    pub terminal: bool,
    /// Per role, whether one of the role's goals reads one of its bases.
    pub goals: Vec<bool>,
    /// Whether its moves' legality reads only control, so which of them are legal is the same
    /// in every line of play.
    pub open: bool,
}

impl Factor {
    /// Whether the terminal condition or some goal reads it: whether its play can matter.
    pub fn relevant(&self) -> bool {
        self.terminal || self.goals.iter().any(|&g| g)
    }

    /// Whether search can leave it aside: nothing that matters reads it, and what it offers to
    /// play never depends on how it was played. (Where a factor's own play could close its
    /// moves, a role that must move somewhere could be forced into a factor that matters.)
    pub fn prunable(&self) -> bool {
        !self.relevant() && self.open
    }
}

/// How a game splits into factors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Factors {
    /// Base propositions no move can change: control logic, set aside.
    pub control: Vec<u32>,
    /// Base propositions set aside as the link between approximate neighbourhoods, which moves
    /// of several of them can change or read; empty for an exact split.
    pub shared: Vec<u32>,
    /// The factors, largest first (by moves, then bases).
    pub factors: Vec<Factor>,
    /// Moves that change and read only control: passes, in no factor.
    pub passes: Vec<u32>,
    /// Per move, its factor's index in `factors`, or `None` for a pass.
    #[serde(skip)]
    pub factor_of: Vec<Option<u32>>,
}

impl Factors {
    /// Splits `net` into factors, or `None` if `deadline` passes first.
    pub fn discover(net: &Net, deadline: Option<Instant>) -> Option<Factors> {
        let e = locality::effects(net, deadline)?;
        Some(Factors::from_effects(net, &e.footprint, &e.reads, &e.changeable, &[]))
    }

    /// Splits `net` exactly and, where that leaves fewer than two factors that matter, into
    /// neighbourhoods if it can ([`Factors::neighbourhoods`]); `None` if `deadline` passes first.
    pub fn discover_all(net: &Net, deadline: Option<Instant>) -> Option<(Factors, Option<Factors>)> {
        let e = locality::effects(net, deadline)?;
        let exact = Factors::from_effects(net, &e.footprint, &e.reads, &e.changeable, &[]);
        let near = Factors::approximate(net, &exact, &e.footprint, &e.reads, &e.changeable, deadline);
        Some((exact, near))
    }

    /// Splits `net` with the moves' effects its locality already holds.
    pub fn of(net: &Net, l: &Locality) -> Factors {
        Factors::from_effects(net, &l.footprint, &l.reads, &l.changeable, &[])
    }

    /// The approximate split of `net` (see the module header), where this, its exact split
    /// ([`Factors::of`] the same locality), has fewer than two factors that matter and setting
    /// aside one small relation of changeable bases leaves two neighbourhoods or more that do;
    /// `None` otherwise, or if `deadline` passes before a link is found.
    pub fn neighbourhoods(&self, net: &Net, l: &Locality, deadline: Option<Instant>) -> Option<Factors> {
        Factors::approximate(net, self, &l.footprint, &l.reads, &l.changeable, deadline)
    }

    /// The neighbourhoods of `net` given its `exact` split and its moves' effects.
    fn approximate(
        net: &Net,
        exact: &Factors,
        footprint: &[Vec<u32>],
        reads: &[Vec<u32>],
        movable: &[bool],
        deadline: Option<Instant>,
    ) -> Option<Factors> {
        if exact.relevant().len() >= 2 {
            return None;
        }
        let changeable = movable.iter().filter(|&&c| c).count();
        let mut relations: std::collections::BTreeMap<&str, Vec<u32>> = std::collections::BTreeMap::new();
        for b in (0..net.bases.len()).filter(|&b| movable[b]) {
            relations.entry(net.bases[b].relation.as_str()).or_default().push(b as u32);
        }
        let mut links: Vec<Vec<u32>> = relations.into_values().collect();
        links.retain(|bases| (bases.len() as f64) <= MAX_LINK_SHARE * changeable as f64);
        links.sort_by_key(Vec::len);
        let in_time = |_: &Vec<u32>| deadline.is_none_or(|d| Instant::now() < d);
        links.into_iter().take_while(in_time).find_map(|link| {
            let f = Factors::from_effects(net, footprint, reads, movable, &link);
            let smallest = (MIN_NEIGHBOURHOOD_SHARE * (changeable - link.len()) as f64).max(link.len() as f64);
            let relevant = f.relevant();
            let sizeable = relevant.iter().all(|&x| f.factors[x as usize].bases.len() as f64 >= smallest);
            // A move touching only the link would stand in no neighbourhood: not this split.
            // The link's bases were taken in order, so it is sorted.
            let linked = |b: &u32| link.binary_search(b).is_ok();
            let linked_only = (0..net.moves.len())
                .any(|j| f.factor_of[j].is_none() && footprint[j].iter().chain(&reads[j]).any(linked));
            (relevant.len() >= 2 && sizeable && !linked_only).then_some(f)
        })
    }

    /// Splits `net` given each move's footprint and reads and which bases moves can change,
    /// with the bases in `shared` set aside as a link (empty for the exact split).
    fn from_effects(
        net: &Net,
        footprint: &[Vec<u32>],
        reads: &[Vec<u32>],
        movable: &[bool],
        shared: &[u32],
    ) -> Factors {
        let (nb, nm) = (net.bases.len(), net.moves.len());
        let mut link = vec![false; nb];
        shared.iter().for_each(|&b| link[b as usize] = true);
        // Only changeable bases outside the link join factors; the link's bases, like control,
        // are seen by every factor.
        let changeable: &[bool] = &movable.iter().zip(&link).map(|(&c, &s)| c && !s).collect::<Vec<bool>>();
        // A move joins every base it touches. A base outside a move's footprint evolves under
        // that move as under its role's default moves, whatever they are (a decaying cell
        // fades whichever other cell is pressed), so it needs no joining.
        let touches: Vec<Vec<u32>> = (0..nm).map(|j| [&footprint[j][..], &reads[j]].concat()).collect();
        // Union-find over bases; each move joins the bases it touches.
        let mut parent = UnionFind::new(nb);
        let mut anchor: Vec<Option<u32>> = vec![None; nm];
        for (j, touched) in touches.iter().enumerate() {
            let mut touched = touched.iter().copied().filter(|&b| changeable[b as usize]);
            let Some(first) = touched.next() else { continue };
            anchor[j] = Some(first);
            for b in touched {
                parent.union(first, b);
            }
        }
        // Goals and terminal must combine per factor: each way of meeting one joins its bases.
        let mut conditions = Conditions { net, expander: Expander::new(net), seen: FxHashSet::default() };
        for bases in conditions.ways(net.terminal) {
            unite(&mut parent, &bases, changeable);
        }
        for goals in &net.goals {
            join_goals(&mut parent, &mut conditions, goals, changeable);
        }
        let mut index = vec![u32::MAX; nb];
        let mut factors: Vec<Factor> = Vec::new();
        let mut root_of = |parent: &mut UnionFind, b: u32, factors: &mut Vec<Factor>| {
            let root = parent.find(b) as usize;
            if index[root] == u32::MAX {
                index[root] = factors.len() as u32;
                factors.push(Factor {
                    bases: Vec::new(),
                    moves: Vec::new(),
                    terminal: false,
                    goals: Vec::new(),
                    open: true,
                });
            }
            index[root]
        };
        let mut factor_of = vec![None; nm];
        for j in 0..nm {
            if let Some(a) = anchor[j] {
                let f = root_of(&mut parent, a, &mut factors);
                factors[f as usize].moves.push(j as u32);
                factor_of[j] = Some(f);
            }
        }
        // Changeable bases always sit in some move's footprint, so each has a factor by now.
        let mut base_factor = vec![None; nb];
        for b in (0..nb as u32).filter(|&b| changeable[b as usize]) {
            let f = root_of(&mut parent, b, &mut factors);
            factors[f as usize].bases.push(b);
            base_factor[b as usize] = Some(f);
        }
        // A factor matters to a condition that reads its bases, or a linked base its moves
        // may change.
        let reading = |roots: Vec<u32>| -> Vec<bool> {
            let mut out = vec![false; factors.len()];
            let mut linked = vec![false; nb];
            for b in net.bases_read(roots) {
                if let Some(f) = base_factor[b] {
                    out[f as usize] = true;
                }
                linked[b] = link[b];
            }
            if shared.is_empty() {
                return out;
            }
            for (j, f) in factor_of.iter().enumerate() {
                if let Some(f) = f.filter(|_| footprint[j].iter().any(|&b| linked[b as usize])) {
                    out[f as usize] = true;
                }
            }
            out
        };
        let terminal = reading(vec![net.terminal]);
        let goals: Vec<Vec<bool>> =
            net.goals.iter().map(|gs| reading(gs.iter().map(|&(_, node)| node).collect())).collect();
        for (f, factor) in factors.iter_mut().enumerate() {
            factor.terminal = terminal[f];
            factor.goals = goals.iter().map(|g| g[f]).collect();
            factor.open = factor
                .moves
                .iter()
                .all(|&j| net.bases_read([net.moves[j as usize].legal]).into_iter().all(|b| !movable[b]));
        }
        let (factors, factor_of) = largest_first(factors, &factor_of);
        Factors {
            control: (0..nb as u32).filter(|&b| !movable[b as usize]).collect(),
            shared: shared.to_vec(),
            passes: (0..nm as u32).filter(|&j| factor_of[j as usize].is_none()).collect(),
            factors,
            factor_of,
        }
    }

    /// Whether the game splits into at least two factors.
    pub fn factored(&self) -> bool {
        self.factors.len() > 1
    }

    /// Whether search can leave some factor aside.
    pub fn prunable(&self) -> bool {
        self.factors.iter().any(Factor::prunable)
    }

    /// The factors whose play can matter, by index: where there are several, a single-player
    /// search can try each on its own first.
    pub fn relevant(&self) -> Vec<u32> {
        (0..self.factors.len() as u32).filter(|&x| self.factors[x as usize].relevant()).collect()
    }

    /// Whether search gains from knowing the factors: some can be left aside, or several
    /// matter.
    pub fn useful(&self) -> bool {
        self.prunable() || self.relevant().len() > 1
    }

    /// Whether move `j` belongs to a factor search can leave aside.
    pub fn pruned(&self, j: u32) -> bool {
        self.factor_of[j as usize].is_some_and(|f| self.factors[f as usize].prunable())
    }

    /// Keeps from one role's legal `moves` in some state those search needs: every move of a
    /// factor that matters and every pass, and, when no pass is among them, the first move of
    /// the factors left aside, which stands for all of them. Each does to what matters exactly
    /// what the others do (nothing), and which of them are legal later is the same whichever
    /// is played, so no line of play is lost.
    /// `index` gives a move's index into the net's moves.
    pub fn relevant_moves<T>(&self, moves: &mut Vec<T>, index: impl Fn(&T) -> u32) {
        let any_pass = moves.iter().any(|mv| self.factor_of[index(mv) as usize].is_none());
        let mut kept_one = any_pass;
        moves.retain(|mv| !self.pruned(index(mv)) || !std::mem::replace(&mut kept_one, true));
    }
}

/// Walks the goal and terminal conditions, joining the bases that must hold together.
struct Conditions<'a> {
    net: &'a Net,
    expander: Expander<'a>,
    seen: FxHashSet<(NodeId, bool)>,
}

impl Conditions<'_> {
    /// The bases of every way of meeting `node`, each a set that must share a factor.
    fn ways(&mut self, node: NodeId) -> Vec<Vec<u32>> {
        self.seen.clear();
        let mut out = Vec::new();
        self.join(node, true, &mut |bases| out.push(bases.collect()));
        out
    }

    /// Calls `join` with the bases of every way of meeting `node` (its negation unless
    /// `positive`): the literals of each disjunct of its disjunctive normal form, or, where that
    /// is too large, each alternative of a disjunction on its own and everything a conjunction
    /// reads together.
    fn join(&mut self, node: NodeId, positive: bool, join: &mut dyn FnMut(&mut dyn Iterator<Item = u32>)) {
        if !self.seen.insert((node, positive)) {
            return;
        }
        if let Some(disjuncts) = self.expander.dnf(node, positive) {
            for d in disjuncts {
                join(&mut d.iter().map(|&(b, _)| b));
            }
            return;
        }
        let inputs = self.net.inputs[node as usize].clone();
        match self.net.kinds[node as usize] {
            Kind::Not => self.join(inputs[0], !positive, join),
            kind @ (Kind::Or | Kind::And) if (kind == Kind::Or) == positive => {
                inputs.into_iter().for_each(|i| self.join(i, positive, join));
            }
            _ => {
                join(&mut self.net.bases_read([node]).into_iter().map(|b| b as u32));
            }
        }
    }
}

/// Joins the changeable ones of `bases`.
fn unite(parent: &mut UnionFind, bases: &[u32], changeable: &[bool]) {
    parent.union_all(bases.iter().copied().filter(|&b| changeable[b as usize]));
}

/// Joins in `parent` the bases of each way of meeting one of a role's `goals` (values and
/// nodes), over the `changeable` bases. In a terminal state a role has exactly one goal value,
/// so one value is the complement of the others and need not join anything: "nothing lit
/// scores 0" joins every panel, while the values that say which panel was lit split per panel.
/// The value whose joining costs the most factors, if any does, is left out.
fn join_goals(parent: &mut UnionFind, conditions: &mut Conditions<'_>, goals: &[(u32, NodeId)], changeable: &[bool]) {
    let nb = changeable.len();
    let ways: Vec<Vec<Vec<u32>>> = goals.iter().map(|&(_, node)| conditions.ways(node)).collect();
    let joined = |parent: &mut UnionFind, skip: Option<usize>| {
        for (_, w) in ways.iter().enumerate().filter(|&(v, _)| Some(v) != skip) {
            w.iter().for_each(|bases| unite(parent, bases, changeable));
        }
    };
    let split = |parent: &UnionFind, skip: Option<usize>| {
        let mut p = parent.clone();
        joined(&mut p, skip);
        (0..nb as u32).filter(|&b| changeable[b as usize] && p.find(b) == b).count()
    };
    let mut skip = None;
    if (2..=MAX_GOAL_TRIALS).contains(&ways.len()) {
        let mut best = split(parent, None);
        for v in 0..ways.len() {
            let n = split(parent, Some(v));
            if n > best {
                (best, skip) = (n, Some(v));
            }
        }
    }
    joined(parent, skip);
}

/// `factors` largest first (most moves, then most bases), for reports, and `factor_of`
/// renumbered to match.
fn largest_first(factors: Vec<Factor>, factor_of: &[Option<u32>]) -> (Vec<Factor>, Vec<Option<u32>>) {
    let mut order: Vec<usize> = (0..factors.len()).collect();
    order.sort_by_key(|&f| (std::cmp::Reverse(factors[f].moves.len()), std::cmp::Reverse(factors[f].bases.len()), f));
    let mut renumber = vec![0u32; factors.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = new as u32;
    }
    let sorted = order.iter().map(|&f| factors[f].clone()).collect();
    (sorted, factor_of.iter().map(|f| f.map(|f| renumber[f as usize])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::net;

    fn names(net: &Net, moves: &[u32]) -> Vec<String> {
        moves.iter().map(|&j| net.moves[j as usize].name.clone()).collect()
    }

    #[test]
    fn multiple_buttons_and_lights_splits_into_nine_of_which_one_matters() {
        let net = net("multiplebuttonsandlights");
        let f = Factors::discover(&net, None).unwrap();
        assert_eq!(f.factors.len(), 9);
        assert!(f.factors.iter().all(|x| x.moves.len() == 3 && x.bases.len() == 3));
        let relevant: Vec<&Factor> = f.factors.iter().filter(|x| x.relevant()).collect();
        assert_eq!(relevant.len(), 1);
        let mut moves = names(&net, &relevant[0].moves);
        moves.sort();
        assert_eq!(moves, ["(press 4 a)", "(press 4 b)", "(press 4 c)"]);
        let control: Vec<&str> = f.control.iter().map(|&b| net.bases[b as usize].name.as_str()).collect();
        assert!(control.iter().all(|c| c.starts_with("(step")), "{control:?}");
        // All 27 moves legal: the three that matter and one to stand for the other 24.
        let mut all: Vec<u32> = (0..net.moves.len() as u32).collect();
        f.relevant_moves(&mut all, |&j| j);
        assert_eq!(all.len(), 4);
    }

    #[test]
    fn fading_lights_splits_into_its_panels_though_lamps_fade_and_nothing_lit_scores_zero() {
        let net = net("fadinglights");
        let f = Factors::discover(&net, None).unwrap();
        // "Nothing lit" reads every panel; as the complement of "some panel lit" it joins none.
        assert_eq!(f.factors.len(), 4);
        assert_eq!(f.relevant(), [0, 1, 2, 3]);
        for x in &f.factors {
            let mut panels: Vec<&str> = x.moves.iter().map(|&j| &net.moves[j as usize].name[7..8]).collect();
            panels.dedup();
            assert_eq!(panels.len(), 1, "{:?}", names(&net, &x.moves));
        }
        assert!(f.useful() && !f.prunable());
    }

    #[test]
    fn tally_tictactoe_splits_into_its_boards_joined_by_the_tally() {
        let net = net("tallytictactoe");
        let l = Locality::analyse(&net, None).expect("no deadline");
        assert!(Factors::of(&net, &l).relevant().len() < 2, "the tally joins the boards exactly");
        let f = Factors::of(&net, &l).neighbourhoods(&net, &l, None).expect("two neighbourhoods");
        let shared: Vec<&str> = f.shared.iter().map(|&b| net.bases[b as usize].name.as_str()).collect();
        assert_eq!(shared.len(), 6);
        assert!(shared.iter().all(|b| b.starts_with("(tally")), "{shared:?}");
        assert_eq!(f.factors.len(), 2);
        for x in &f.factors {
            assert!(x.relevant() && !x.terminal, "both can score, neither ends the game");
            assert_eq!((x.bases.len(), x.moves.len()), (27, 18));
            let mut boards: Vec<&str> = x.moves.iter().map(|&j| &net.moves[j as usize].name[6..10]).collect();
            boards.dedup();
            assert_eq!(boards.len(), 1, "{:?}", names(&net, &x.moves));
        }
        // The passes change nothing, the tally included.
        assert_eq!(names(&net, &f.passes), ["noop", "noop"]);
    }

    #[test]
    fn games_that_split_exactly_or_not_at_all_have_no_neighbourhoods() {
        for game in ["dualtictactoe", "tictactoe", "connectfour", "breakthroughsmall"] {
            let net = net(game);
            let l = Locality::analyse(&net, None).expect("no deadline");
            assert_eq!(Factors::of(&net, &l).neighbourhoods(&net, &l, None), None, "{game}");
        }
    }

    #[test]
    fn tictactoe_is_one_factor_with_turn_control_set_aside() {
        let net = net("tictactoe");
        let f = Factors::discover(&net, None).unwrap();
        assert_eq!(f.factors.len(), 1);
        assert!(!f.prunable());
        let control: Vec<&str> = f.control.iter().map(|&b| net.bases[b as usize].name.as_str()).collect();
        assert_eq!(control, ["(control xplayer)", "(control oplayer)"]);
        // A mark changes its own cell only: a blank cell elsewhere stays blank under it as under
        // any mark but its own, however the ways of keeping it are written.
        let l = locality::effects(&net, None).expect("no deadline");
        for (j, mv) in net.moves.iter().enumerate().filter(|(_, m)| m.name.starts_with("(mark")) {
            let cell = &mv.name["(mark ".len()..mv.name.len() - 1];
            let writes: Vec<&str> = l.fp.writes[j].iter().map(|&b| net.bases[b as usize].name.as_str()).collect();
            let mark = if net.roles[mv.role] == "xplayer" { "x" } else { "o" };
            assert_eq!(writes, [format!("(cell {cell} b)"), format!("(cell {cell} {mark})")], "{}", mv.name);
        }
        // `noop` is no pass: with the other role's move left open, a blank cell stays blank under
        // it only if that move marks another, which the net does not say is always so.
        assert!(f.passes.is_empty());
    }
}
