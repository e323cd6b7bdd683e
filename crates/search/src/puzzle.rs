//! Optimal plans for single-player games: iterative-deepening A* (IDA*) under the admissible
//! [`Bound`], for each goal value from the best down, so the first value reached is the best
//! score and its plan the shortest one.
//!
//! A pass searches depth-first every line whose length so far plus the bound stays within the
//! current limit; the next limit is the smallest sum that went over. When nothing went over, no
//! terminal state with the value is reachable at all, which is how a value is proved out of
//! reach. States already searched in the same pass at the same or a smaller depth are skipped
//! (a transposition table), states that the goal latches declare dead are never entered, and
//! siblings are tried in the order of their bound, then of the caller's guidance. Moves of
//! factors that nothing that matters reads are collapsed to one (factorisation); where several
//! factors can each end and score the game, each is first searched on its own for the best value (the Sancho blog's
//! factored search: a puzzle of independent panels is won on one of them). Before the
//! first pass a greedy descent along the same order reaches some terminal state quickly, so that
//! a search cut short by the deadline still has a plan to show.

use crate::bound::{Bound, UNREACHABLE};
use crate::{Solution, SolveError, SolveStats, Stop};
use analysis::{Bar, Factors, GoalLatches};
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use rustc_hash::FxHashMap;
use std::time::Instant;

/// States remembered per pass; beyond this the search goes on without remembering more.
const TABLE_LIMIT: usize = 1 << 20;
/// Nodes the factor-by-factor passes may take before the whole game is searched.
const BY_FACTOR_NODES: u64 = 1 << 24;
/// The greedy descent stops after this many moves in games that run that long.
const DIVE_LIMIT: usize = 100_000;

/// How to search.
#[derive(Default)]
pub struct SolveConfig<'a> {
    /// Dead-state removal: states whose latches rule the sought value out are not searched.
    pub goals: Option<&'a GoalLatches>,
    /// Factorisation: of the moves of factors nothing that matters reads, one stands for all.
    pub factors: Option<&'a Factors>,
    /// Orders siblings with equal bounds, higher first (e.g. a heuristic estimate of the goal).
    pub guidance: Option<&'a mut dyn FnMut(&PropnetState) -> f64>,
    /// When to stop and return the best plan found so far.
    pub deadline: Option<Instant>,
}

/// A successor waiting to be searched.
struct Child {
    mv: u32,
    state: PropnetState,
    /// The lower bound on the moves left (0 for a terminal state with the sought value).
    h: u32,
    terminal: bool,
    guide: f64,
}

/// Why a pass ended.
enum Pass {
    /// A plan for the sought value, of the given moves.
    Found(Vec<u32>),
    /// Nothing went over the limit: the value is out of reach.
    Exhausted,
    /// The smallest sum over the limit, for the next pass.
    Exceeded(u32),
}

struct Search<'a> {
    m: PropnetMachine,
    bound: Bound,
    goals: Option<&'a GoalLatches>,
    factors: Option<&'a Factors>,
    guidance: Option<&'a mut dyn FnMut(&PropnetState) -> f64>,
    deadline: Option<Instant>,
    /// The goal value sought in this pass.
    target: u32,
    /// The factor searched on its own, if any: only its moves are tried, and one move of
    /// another factor stands for every way of passing on it.
    only: Option<u32>,
    stats: SolveStats,
    /// The best terminal state reached so far: its score and the moves to it.
    best: Option<(u32, Vec<u32>)>,
}

/// Finds the best score of `net`'s single-player game and a shortest plan reaching it.
pub fn solve(net: &Net, options: SolveConfig<'_>) -> Result<Solution, SolveError> {
    if net.roles.len() != 1 {
        return Err(SolveError::NotSinglePlayer(net.roles.len()));
    }
    let mut m = PropnetMachine::new(net);
    let root = m.initial_state();
    // The bound gets a quarter of the time: a weaker bound still leaves the search time to run.
    let now = Instant::now();
    let bound = Bound::new(net, &root, options.deadline.map(|d| now + d.saturating_duration_since(now) / 4));
    let mut s = Search {
        m,
        bound,
        goals: options.goals,
        factors: options.factors,
        guidance: options.guidance,
        deadline: options.deadline,
        target: 0,
        only: None,
        stats: SolveStats { nodes: 1, ..SolveStats::default() },
        best: None,
    };
    let mut values: Vec<u32> = net.goals[0].iter().map(|&(v, _)| v).collect();
    values.sort_unstable_by(|a, b| b.cmp(a));
    values.dedup();
    let mut optimal = true;
    let mut one_factor = false;
    if s.m.is_terminal(&root)? {
        s.best = Some((s.m.played_goal(&root, 0)?, Vec::new()));
    } else {
        for (i, &value) in values.iter().enumerate() {
            s.target = value;
            s.bound.target(value);
            let outcome = (|| {
                if i == 0 {
                    s.stats.bound = Some(s.estimate(&root));
                    s.dive(&root)?;
                    if let Some(plan) = s.by_factor(&root)? {
                        return Ok(Some((plan, true)));
                    }
                }
                Ok(s.deepen(&root)?.map(|plan| (plan, false)))
            })();
            match outcome {
                Ok(Some((plan, by_factor))) => {
                    s.best = Some((value, plan));
                    one_factor = by_factor;
                    break;
                }
                Ok(None) => {}
                Err(Stop::Machine(e)) => return Err(e.into()),
                Err(Stop::OutOfTime) => {
                    optimal = false;
                    break;
                }
            }
        }
    }
    let (score, plan) = match s.best {
        Some((score, moves)) => (Some(score), moves.iter().map(|mv| s.m.format_move(mv)).collect()),
        None => (None, Vec::new()),
    };
    Ok(Solution { score, plan, optimal: optimal && !one_factor, one_factor, stats: s.stats })
}

impl Search<'_> {
    /// The bound on the moves from a non-terminal `state` to the sought value.
    fn estimate(&self, state: &PropnetState) -> u32 {
        if self.goals.is_some_and(|g| g.is_dead(state.words(), 0, Bar::AtLeast(self.target))) {
            return UNREACHABLE;
        }
        self.bound.estimate(state)
    }

    /// Keeps a terminal state's score and plan if it beats the best so far (a higher score, or
    /// the same score sooner).
    fn record(&mut self, score: u32, path: &[u32], mv: u32) {
        let better = self
            .best
            .as_ref()
            .is_none_or(|(best, plan)| score > *best || (score == *best && path.len() + 1 < plan.len()));
        if better {
            self.best = Some((score, path.iter().copied().chain([mv]).collect()));
        }
    }

    /// The successors of `state` (reached by `path`) worth searching, the most promising last;
    /// with `all`, also those from which the sought value is out of reach (for the descent,
    /// which wants any terminal state).
    fn expand(&mut self, state: &PropnetState, path: &[u32], all: bool) -> Result<Vec<Child>, Stop> {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(Stop::OutOfTime);
        }
        let mut children = Vec::new();
        let mut moves = crate::legal_moves(&mut self.m, state, self.factors)?;
        if let (Some(only), Some(f)) = (self.only, self.factors) {
            let stand_in = moves.iter().copied().filter(|&j| f.factor_of[j as usize] != Some(only)).min_by_key(|&j| {
                // A pass disturbs no factor, a move of a factor left aside none that matters.
                f.factor_of[j as usize].map_or(0, |x| if f.factors[x as usize].prunable() { 1 } else { 2 })
            });
            moves.retain(|&j| f.factor_of[j as usize] == Some(only));
            moves.extend(stand_in);
        }
        for mv in moves {
            let next = self.m.next_state(state, &[mv])?;
            let terminal = self.m.is_terminal(&next)?;
            let h = if terminal {
                let score = self.m.played_goal(&next, 0)?;
                self.record(score, path, mv);
                self.stats.nodes += 1;
                if score != self.target {
                    continue;
                }
                0
            } else {
                let h = self.estimate(&next);
                if h == UNREACHABLE && !all {
                    self.stats.pruned += 1;
                    continue;
                }
                self.stats.nodes += 1;
                h
            };
            let guide = self.guidance.as_mut().map_or(0.0, |g| g(&next));
            children.push(Child { mv, state: next, h, terminal, guide });
        }
        children.sort_by(|a, b| b.h.cmp(&a.h).then(a.guide.total_cmp(&b.guide)));
        Ok(children)
    }

    /// Follows the most promising successor down to a terminal state, for a first plan.
    fn dive(&mut self, root: &PropnetState) -> Result<(), Stop> {
        let mut state = root.clone();
        let mut path = Vec::new();
        for _ in 0..DIVE_LIMIT {
            match self.expand(&state, &path, true)?.pop() {
                Some(c) if !c.terminal => {
                    path.push(c.mv);
                    state = c.state;
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// IDA* for the sought value: a plan of the fewest moves, or `None` if it is out of reach.
    fn deepen(&mut self, root: &PropnetState) -> Result<Option<Vec<u32>>, Stop> {
        let mut limit = self.estimate(root);
        let mut table: FxHashMap<PropnetState, u32> = FxHashMap::default();
        while limit != UNREACHABLE {
            table.clear();
            let pass = self.pass(root, limit, &mut table)?;
            self.stats.passes += 1;
            match pass {
                Pass::Found(plan) => return Ok(Some(plan)),
                Pass::Exhausted => return Ok(None),
                Pass::Exceeded(next) => limit = next,
            }
        }
        Ok(None)
    }

    /// For a game of several factors that can each end and score it, a plan for the sought
    /// value that plays one
    /// factor only (another's move standing in wherever it passes), if some factor has one:
    /// IDA* on each factor on its own, every factor's pass at a limit run before any at a
    /// higher one, so the plan is the shortest of its kind. Every such plan is a line of the
    /// real game, but a line weaving several factors together may be shorter.
    fn by_factor(&mut self, root: &PropnetState) -> Result<Option<Vec<u32>>, Stop> {
        let Some(f) = self.factors else { return Ok(None) };
        // Only factors that can both end the game and score it may win it alone.
        let whole = |x: u32| f.factors[x as usize].terminal && f.factors[x as usize].goals[0];
        let relevant: Vec<u32> = f.relevant().into_iter().filter(|&x| whole(x)).collect();
        if relevant.len() < 2 {
            return Ok(None);
        }
        let start = self.estimate(root);
        // Per factor still open, the limit of its next pass.
        let mut open: Vec<(u32, u32)> = relevant.iter().map(|&x| (x, start)).collect();
        let mut table: FxHashMap<PropnetState, u32> = FxHashMap::default();
        // Where the sought value needs play in more than one factor (one factor's condition
        // scores, another's ends the game), no factor alone has a plan, and the passes could
        // run on as deep as the game: they get half the time left and a share of nodes.
        let deadline = self.deadline;
        let now = Instant::now();
        self.deadline = deadline.map(|d| now + d.saturating_duration_since(now) / 2);
        let nodes = self.stats.nodes + BY_FACTOR_NODES;
        let found = loop {
            if self.stats.nodes > nodes {
                break Ok(None);
            }
            let Some(k) = (0..open.len()).filter(|&k| open[k].1 != UNREACHABLE).min_by_key(|&k| open[k].1) else {
                break Ok(None);
            };
            self.only = Some(open[k].0);
            table.clear();
            let pass = self.pass(root, open[k].1, &mut table);
            self.only = None;
            self.stats.passes += 1;
            match pass {
                Ok(Pass::Found(plan)) => break Ok(Some(plan)),
                Ok(Pass::Exhausted) => open[k].1 = UNREACHABLE,
                Ok(Pass::Exceeded(next)) => open[k].1 = next,
                Err(Stop::OutOfTime) => break Ok(None),
                Err(e) => break Err(e),
            }
        };
        self.deadline = deadline;
        found
    }

    /// One depth-first pass within `limit`, with an explicit stack (games can be long).
    fn pass(
        &mut self,
        root: &PropnetState,
        limit: u32,
        table: &mut FxHashMap<PropnetState, u32>,
    ) -> Result<Pass, Stop> {
        let mut exceeded = UNREACHABLE;
        let mut path: Vec<u32> = Vec::new();
        // Per depth, the successors still to try; the path holds the moves down to the top.
        let mut stack = vec![self.expand(root, &path, false)?];
        while let Some(children) = stack.last_mut() {
            let Some(c) = children.pop() else {
                stack.pop();
                path.pop();
                continue;
            };
            let g = path.len() as u32 + 1;
            let f = g.saturating_add(c.h);
            if f > limit {
                exceeded = exceeded.min(f);
                continue;
            }
            if c.terminal {
                path.push(c.mv);
                return Ok(Pass::Found(path));
            }
            if table.get(&c.state).is_some_and(|&seen| seen <= g) {
                continue;
            }
            if table.len() < TABLE_LIMIT {
                table.insert(c.state.clone(), g);
            }
            path.push(c.mv);
            let children = self.expand(&c.state, &path, false)?;
            stack.push(children);
        }
        Ok(if exceeded == UNREACHABLE { Pass::Exhausted } else { Pass::Exceeded(exceeded) })
    }
}
