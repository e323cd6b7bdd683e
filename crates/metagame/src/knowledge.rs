//! What the player knows of a game beyond its rules, learned during the start clock: the
//! analysis' goal latches, goal forms and factors, whether playouts use the tactics, the roles'
//! pieces and the outlook, and the cut-down nets on which a playout looks a move ahead.

use crate::outlook::Outlook;
use crate::pieces::{Balance, Pieces};
use analysis::{Factors, GoalForms, GoalLatches, LatchHeuristic};
use machine::{MachineError, StateMachine};
use propnet::{GoalOracle, Net, Program, Watch};
use std::sync::Arc;
use structures::Bits;

/// What playouts know beyond the rules: the analysis' goal latches (possibly none), and
/// cut-down copies of the game's net on which a playout looks a move ahead at a small cost —
/// one computing the next values of the latch bases and of the bases the goals and terminal
/// read, one judging whether a state so computed ends the game and how. With `tactics`, a
/// playout takes a move that wins at once (decisive) and takes back a move after which an
/// opponent has one (anti-decisive); otherwise the judge is used only where the end reads few
/// bases, for the latches' sake.
#[derive(Debug)]
pub struct Knowledge {
    pub(crate) goals: GoalLatches,
    /// The latch bases, ascending: looked at for every candidate move when there are latches.
    pub(crate) latch_watch: Watch,
    /// The latch bases and the bases the end reads, ascending: looked at for candidate moves
    /// that may end the game.
    pub(crate) watch: Watch,
    /// The net cut down to the next values of the watched bases.
    pub(crate) next: Arc<Program>,
    /// The net cut down to its goals and terminal.
    pub(crate) outcome: Option<Arc<Program>>,
    pub(crate) tactics: bool,
    /// The roles' pieces, for the tree's priors.
    pub(crate) pieces: Option<Pieces>,
    /// Confirmed forms of the goal calculation: scores without the goal net, virtual terminals.
    pub(crate) forms: Option<Arc<GoalForms>>,
    /// The factors, where search can leave some aside.
    pub(crate) factors: Option<Arc<Factors>>,
    /// Where playouts can see what a move does to the roles' pieces.
    pub(crate) captures: Option<Captures>,
    /// The outlook confirmed for the tree's priors, where the roles have no pieces.
    pub(crate) outlook: Option<Outlook>,
}

/// The net cut down to the next values of the roles' pieces, for playouts that prefer moves
/// gaining material.
#[derive(Debug)]
pub(crate) struct Captures {
    pub(crate) next: Arc<Program>,
    /// The pieces' bases, ascending.
    pub(crate) watch: Watch,
    /// Per role, what each of `watch`'s positions adds to its lead in material when true, in
    /// hundredths: a piece's worth where it is the role's, less it where it is another's (100
    /// a piece where kinds are not told apart).
    pub(crate) weights: Vec<Vec<i64>>,
}

impl Captures {
    /// The lookahead over `pieces`' bases in `net`.
    fn new(net: &Net, pieces: &Pieces) -> Captures {
        let watch: Vec<usize> =
            (0..net.bases.len()).filter(|&b| pieces.sets.iter().any(|set| set.group.mask.bit(b))).collect();
        // Per role, each kind of its pieces: the bases of the kind and what a piece is worth.
        let kinds: Vec<Vec<(&[u64], i64)>> = pieces
            .sets
            .iter()
            .map(|set| match set.kinds.is_empty() {
                true => vec![(&set.group.mask[..], 100)],
                false => set.kinds.iter().map(|k| (&k.group.mask[..], (k.value * 100.0).round() as i64)).collect(),
            })
            .collect();
        let weights = (0..kinds.len())
            .map(|role| {
                let worth = |q: usize, b: usize| -> i64 {
                    kinds[q].iter().filter(|(mask, _)| mask.bit(b)).map(|&(_, w)| w).sum()
                };
                let weight =
                    |b: usize| (0..kinds.len()).map(|q| if q == role { worth(q, b) } else { -worth(q, b) }).sum();
                watch.iter().map(|&b| weight(b)).collect()
            })
            .collect();
        let next = Arc::new(Program::new(&propnet::cut::to_next(net, &watch)));
        let watch = Watch::new(&next, watch);
        Captures { next, watch, weights }
    }

    /// `role`'s material against the others' in `seen` (bits over the watch's positions), in
    /// hundredths.
    pub(crate) fn lead(&self, role: usize, seen: &[u64]) -> i64 {
        let weights = &self.weights[role];
        let mut lead = 0;
        for (i, &word) in seen.iter().enumerate() {
            let mut word = word;
            while word != 0 {
                lead += weights[i * 64 + word.trailing_zeros() as usize];
                word &= word - 1;
            }
        }
        lead
    }
}

impl Knowledge {
    /// The knowledge given by `goals`, the goal latches of `net` (maybe none), with decisive and
    /// anti-decisive moves in playouts if `tactics`.
    pub fn new(net: &Net, goals: GoalLatches, tactics: bool) -> Knowledge {
        let latch_watch = goals.bases();
        let mut watch = latch_watch.clone();
        let ends = net.bases_read(net.goals.iter().flatten().map(|&(_, n)| n).chain([net.terminal]));
        // Where the end reads a few bases (a king on the last rank, a step counter), judging
        // every candidate costs little; where it reads the whole board (no piece or no legal
        // move left) it costs about a full step per candidate (skirmish: 8 times fewer
        // iterations), which only the tactics, looking at moves that have ended games, pay for.
        let outcome = (tactics || ends.len() * 4 <= net.bases.len()).then(|| {
            watch.extend(ends);
            watch.sort_unstable();
            watch.dedup();
            Arc::new(Program::for_one_state(&propnet::cut::to_outcome(net)))
        });
        let next = Arc::new(Program::new(&propnet::cut::to_next(net, &watch)));
        Knowledge {
            goals,
            latch_watch: Watch::new(&next, latch_watch),
            watch: Watch::new(&next, watch),
            next,
            outcome,
            tactics,
            pieces: None,
            forms: None,
            factors: None,
            captures: None,
            outlook: None,
        }
    }

    /// The goal latches.
    pub fn goals(&self) -> &GoalLatches {
        &self.goals
    }

    /// The knowledge with the roles' `pieces` (found in `net`) for the tree's priors and, where
    /// playouts run guided, for preferring moves that gain material in them.
    pub fn with_pieces(mut self, net: &Net, pieces: Pieces) -> Knowledge {
        self.captures = self.steers_playouts().then(|| Captures::new(net, &pieces));
        self.pieces = Some(pieces);
        self
    }

    /// The knowledge with its playouts guided for the pieces' sake where nothing else guides
    /// them: played one at a time, taking captures by chance and cut off and scored by the
    /// balance as guided playouts with pieces are. Unchanged without pieces.
    pub fn with_guided_captures(mut self, net: &Net) -> Knowledge {
        if let Some(pieces) = &self.pieces {
            self.captures = Some(Captures::new(net, pieces));
        }
        self
    }

    /// The knowledge without [`with_guided_captures`](Self::with_guided_captures)' guidance
    /// where only that guided its playouts.
    pub fn without_guided_captures(mut self) -> Knowledge {
        if self.goals.is_empty() && !self.tactics {
            self.captures = None;
        }
        self
    }

    /// The knowledge with the outlook random games confirmed, for the tree's priors
    /// where the roles have no pieces (the pieces' balance gives them where they have).
    pub fn with_outlook(mut self, outlook: Outlook) -> Knowledge {
        self.outlook = Some(outlook);
        self
    }

    /// The confirmed outlook, where there is one.
    pub fn outlook(&self) -> Option<&Outlook> {
        self.outlook.as_ref()
    }

    /// The knowledge with the goal forms random games confirmed (none if they found nothing usable).
    pub fn with_forms(mut self, forms: GoalForms) -> Knowledge {
        let useful = |f: &GoalForms| {
            f.emulator().is_some() || !f.deciders.is_empty() || f.latch_heuristics.iter().any(|h| h.confirmed)
        };
        self.forms = Some(forms).filter(useful).map(Arc::new);
        self
    }

    /// The knowledge with the game's factors, kept where search can leave one aside or (in a
    /// puzzle) try one at a time.
    pub fn with_factors(mut self, factors: Factors) -> Knowledge {
        self.factors = Some(factors).filter(Factors::useful).map(Arc::new);
        self
    }

    /// The game's factors, where search gains from them.
    pub fn factors(&self) -> Option<&Factors> {
        self.factors.as_deref()
    }

    /// The goal emulator for bit-sliced playouts on `program`, where it pays: where the goal
    /// gates outnumber the bits the emulator has to gather from 64 finished playouts (one per
    /// base proposition and playout). `latchkey bench` measured othello-comp2007 (177k goal
    /// gates, 130 bases) 1.44 times faster emulated and reversi (16k) 1.06 times, and dots and
    /// boxes (500 goal gates, 164 bases) 0.96 times.
    pub fn goal_oracle(&self, program: &Program) -> Option<Arc<dyn GoalOracle>> {
        let heavy = program.stats().goal_gates >= 64 * program.base_count();
        let forms = self.forms.as_ref().filter(|f| heavy && f.emulator().is_some())?;
        Some(Arc::clone(forms) as Arc<dyn GoalOracle>)
    }

    /// Every role's score if it is already decided in `state` (propnet state words): by the goal
    /// latches, or by a goal form's virtual terminal.
    pub fn decided(&self, state: &[u64]) -> Option<Vec<u32>> {
        self.goals.determined(state).or_else(|| self.forms.as_ref()?.decided(state))
    }

    /// Every role's score in terminal `state` by the goal emulator, if there is one and it
    /// knows; otherwise the goal net's.
    pub fn scores<M: StateMachine>(&self, m: &mut M, state: &M::State, bits: Option<&[u64]>) -> Vec<u8> {
        bits.and_then(|b| self.emulated_scores(b)).unwrap_or_else(|| scores(m, state))
    }

    /// Every role's score in terminal `state` (propnet state words) by the goal emulator, if
    /// there is one and it knows.
    pub fn emulated_scores(&self, state: &[u64]) -> Option<Vec<u8>> {
        let values = self.forms.as_ref()?.scores(state)?;
        Some(values.iter().map(|&v| v.min(100) as u8).collect())
    }

    /// Per role, the confirmed latch heuristics' value of `state` (propnet state words) on the
    /// 0..=100 scale, if any latch heuristic was confirmed.
    pub fn latch_value(&self, state: &[u64]) -> Option<Vec<u8>> {
        let values = self.forms.as_ref()?.latch_value(state)?;
        Some(values.iter().map(|v| (v * 100.0).round() as u8).collect())
    }

    /// The confirmed latch heuristic that random games bore out best, if the goal forms have
    /// one: what an [`Outlook`] can read leads from.
    pub fn latch_heuristic(&self) -> Option<&LatchHeuristic> {
        self.forms.as_ref()?.best_latch_heuristic()
    }

    /// The tree's priors for the states reached from `previous`, where the knowledge knows the
    /// roles' pieces: their balance since `root` (propnet state words; the placement counting
    /// `placement` times, see [`Pieces::balance`]), and how much of the search's prior weight it
    /// gets there.
    pub fn priors(&self, previous: &[u64], root: &[u64], placement: f64) -> Option<(Balance<'_>, f64)> {
        let p = self.pieces.as_ref()?;
        Some((p.balance(previous, root, placement), p.weight(root)))
    }

    /// The roles' pieces, where they were found: the tree's priors and the cutoff's score.
    pub fn pieces(&self) -> Option<&Pieces> {
        self.pieces.as_ref()
    }

    /// Whether playouts run guided (one at a time, looking ahead) rather than bit-sliced.
    pub fn steers_playouts(&self) -> bool {
        !self.goals.is_empty() || self.tactics || self.captures.is_some()
    }

    /// Whether the knowledge tells the search nothing (the search then ignores it).
    pub fn is_empty(&self) -> bool {
        !self.steers_playouts()
            && self.pieces.is_none()
            && self.forms.is_none()
            && self.factors.is_none()
            && self.outlook.is_none()
    }
}

/// Every role's score in `state`, read as [`machine::played_value`] reads it.
pub fn scores<M: StateMachine>(m: &mut M, state: &M::State) -> Vec<u8> {
    (0..m.roles().len()).map(|r| score(&m.goal(state, r))).collect()
}

/// A goal query's answer as a score, read as [`machine::played_value`] reads it.
pub fn score(goal: &Result<u32, MachineError>) -> u8 {
    machine::played_score(goal).min(100) as u8
}
