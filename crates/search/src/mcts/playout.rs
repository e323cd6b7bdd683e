//! Playouts from the leaves of the tree: on a propnet bit-sliced, up to 64 leaves in one pass,
//! or one at a time steered by the goal latches; on any other machine one uniformly random
//! playout at a time.

use super::score;
use analysis::{GoalLatches, ScoreRange};
use machine::playout::PlayoutEnd;
use machine::{MachineError, StateMachine};
use propnet::{Net, Program, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::Rng;
use std::sync::Arc;
use std::time::Instant;

/// How often (in joint moves, a power of two) a playout looks at the clock.
const CLOCK_EVERY: u32 = 16;

/// What a playout from one leaf found.
#[derive(Debug, Clone)]
pub struct Outcome<Mv> {
    /// Every role's score where it stopped, 0..=100.
    pub scores: Vec<u8>,
    /// Whether the game was over (or its scores decided by latches) there: only such playouts
    /// make plans.
    pub complete: bool,
    /// The moves played, when asked for (single-player plans).
    pub moves: Vec<Mv>,
}

/// What the search uses of the analysis: the goal latches, and cut-down copies of the game's
/// net on which playouts look a move ahead at a small cost — one computing the next values of
/// the latch bases (and of the bases the goals and terminal read, when those are few), one
/// judging whether a state so computed ends the game and how.
#[derive(Debug)]
pub struct Guide {
    goals: GoalLatches,
    /// The bases whose next values each candidate move is looked at for, ascending.
    watch: Vec<usize>,
    next: Arc<Program>,
    /// The net cut down to its goals and terminal, if the lookahead watches what they read.
    outcome: Option<Arc<Program>>,
}

impl Guide {
    /// The guide given by `goals`, the goal latches of `net`.
    pub fn new(net: &Net, goals: GoalLatches) -> Guide {
        let mut watch = goals.bases();
        let ends = net.bases_read(net.goals.iter().flatten().map(|&(_, n)| n).chain([net.terminal]));
        // Where the end reads a few bases (a king on the last rank, a step counter), finding a
        // winning move costs little; where it reads the whole board (no piece or no legal move
        // left), every candidate costs about a full step (skirmish: 8 times fewer iterations).
        let outcome = (ends.len() * 4 <= net.bases.len()).then(|| {
            watch.extend(ends);
            watch.sort_unstable();
            watch.dedup();
            Arc::new(Program::new(&propnet::cut::to_outcome(net)))
        });
        let next = Arc::new(Program::new(&propnet::cut::to_next(net, &watch)));
        Guide { goals, watch, next, outcome }
    }

    /// The goal latches.
    pub fn goals(&self) -> &GoalLatches {
        &self.goals
    }

    /// Whether the latches tell anything (if not, the search ignores the guide).
    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }
}

/// How playouts run, the same for every batch of a search.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Joint moves after which a playout is cut off.
    pub max_steps: u32,
    /// Record the moves of every playout.
    pub trace: bool,
    /// Steer playouts by the goal latches.
    pub guide: Option<Arc<Guide>>,
    /// Playouts still running then are dropped.
    pub deadline: Option<Instant>,
}

impl Settings {
    /// Whether the deadline has passed.
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Machines over the guide's cut nets, made by a playing thread at its first guided playout.
#[derive(Debug, Default)]
pub struct Lookahead(Option<(PropnetMachine, Option<PropnetMachine>)>);

/// One uniformly random playout from `start` on any machine; `None` if the deadline passed.
pub(super) fn random<M: StateMachine>(
    m: &mut M,
    start: &M::State,
    rng: &mut SmallRng,
    s: &Settings,
) -> Result<Option<Outcome<M::Move>>, MachineError> {
    let roles = m.roles().len();
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut steps = 0u32;
    let ended = |m: &mut M, state: &M::State, complete: bool, moves: Vec<M::Move>| {
        Ok(Some(Outcome { scores: scores(m, state), complete, moves }))
    };
    loop {
        if m.is_terminal(&state)? {
            return ended(m, &state, true, moves);
        }
        if steps >= s.max_steps {
            return ended(m, &state, false, moves);
        }
        // A step of a machine without a fast path can take milliseconds: look at every one.
        if s.out_of_time() {
            return Ok(None);
        }
        let mut joint = Vec::with_capacity(roles);
        for r in 0..roles {
            let mut legal = m.legal_moves(&state, r)?;
            if legal.is_empty() {
                return ended(m, &state, false, moves);
            }
            joint.push(legal.swap_remove(rng.random_range(0..legal.len())));
        }
        state = m.next_state(&state, &joint)?;
        if s.trace {
            moves.extend_from_slice(&joint);
        }
        steps += 1;
    }
}

/// One random playout from each of `starts`, 64 at a time bit-sliced.
pub(super) fn bit_sliced(
    m: &mut PropnetMachine,
    starts: &[PropnetState],
    rng: &mut SmallRng,
    s: &Settings,
) -> Vec<Option<Outcome<u32>>> {
    let mut out = vec![None; starts.len()];
    for (k, chunk) in starts.chunks(64).enumerate() {
        let refs: Vec<&PropnetState> = chunk.iter().collect();
        let mut steps = 0u32;
        let mut go_on = || {
            steps += 1;
            steps & (CLOCK_EVERY - 1) != 0 || !s.out_of_time()
        };
        let results = &mut out[k * 64..];
        m.playout_each(&refs, rng, s.max_steps, s.trace, &mut go_on, &mut |e| {
            results[e.origin] = Some(Outcome {
                scores: e.goals.iter().map(score).collect(),
                complete: e.end == PlayoutEnd::Terminal,
                moves: e.trace.to_vec(),
            });
        });
    }
    out
}

/// Random play from `start` where each role, given the others' random moves, looks one move
/// ahead at the goal latches and, where that is cheap, the game's end: it never plays a move
/// that lowers its highest achievable score while it has another, and always plays one that
/// raises its lowest when it can (Sancho's crude but effective weighting: a king that can be
/// captured is captured), best of all one that secures its highest (a winning move). A state
/// whose scores the latches decide ends the playout.
pub(super) fn guided(
    m: &mut PropnetMachine,
    lookahead: &mut Lookahead,
    start: &PropnetState,
    guide: &Guide,
    rng: &mut SmallRng,
    s: &Settings,
) -> Result<Option<Outcome<u32>>, MachineError> {
    let (look, judge) = lookahead.0.get_or_insert_with(|| {
        let machine = |p: &Arc<Program>| PropnetMachine::from_program(Arc::clone(p));
        (machine(&guide.next), guide.outcome.as_ref().map(machine))
    });
    let goals = &guide.goals;
    let roles = m.roles().len();
    let mut state = start.clone();
    let mut moves = Vec::new();
    let mut joint = vec![0u32; roles];
    let mut legal: Vec<Vec<u32>> = vec![Vec::new(); roles];
    let mut bits = Vec::new();
    // A candidate's next state as far as the ranking reads it: the latch bases and, with a
    // judge, the bases the end reads, all watched and all set for every candidate ranked,
    // so the other bits need not follow the playout.
    let mut after = start.clone();
    let w = guide.watch.len().div_ceil(64);
    let mut steps = 0u32;
    loop {
        if m.is_terminal(&state)? {
            return Ok(Some(Outcome { scores: scores(m, &state), complete: true, moves }));
        }
        if let Some(decided) = goals.determined(state.words()) {
            let scores = decided.iter().map(|&v| v.min(100) as u8).collect();
            return Ok(Some(Outcome { scores, complete: true, moves }));
        }
        if steps >= s.max_steps {
            return Ok(Some(Outcome { scores: scores(m, &state), complete: false, moves }));
        }
        if steps & (CLOCK_EVERY - 1) == 0 && s.out_of_time() {
            return Ok(None);
        }
        for (r, l) in legal.iter_mut().enumerate() {
            *l = m.legal_moves(&state, r)?;
            if l.is_empty() {
                return Ok(Some(Outcome { scores: scores(m, &state), complete: false, moves }));
            }
            joint[r] = l[rng.random_range(0..l.len())];
        }
        for (r, l) in legal.iter().enumerate().filter(|(_, l)| l.len() > 1) {
            let now = goals.range(state.words(), r);
            look.lookahead(&state, &joint, r, l, &guide.watch, &mut bits);
            let (mut best, mut ties, mut last) = (i8::MIN, 0u32, 0);
            for (k, &mv) in l.iter().enumerate() {
                let seen = &bits[k * w..(k + 1) * w];
                // Most moves change no watched base: rank only a pattern not seen just before.
                let tier = if k > 0 && seen == &bits[(k - 1) * w..k * w] {
                    last
                } else {
                    for (j, &b) in guide.watch.iter().enumerate() {
                        after.set(b, seen[j / 64] >> (j % 64) & 1 == 1);
                    }
                    let mut ended = None;
                    if let Some(j) = judge.as_mut() {
                        if j.is_terminal(&after)? {
                            ended = Some(score(&j.goal(&after, r)) as u32);
                        }
                    }
                    let then =
                        ended.map_or_else(|| goals.range(after.words(), r), |v| Some(ScoreRange { min: v, max: v }));
                    tier(now, then)
                };
                last = tier;
                if tier > best {
                    (best, ties) = (tier, 0);
                }
                if tier == best {
                    ties += 1;
                    if rng.random_range(0..ties) == 0 {
                        joint[r] = mv;
                    }
                }
            }
        }
        state = m.next_state(&state, &joint)?;
        if s.trace {
            moves.extend_from_slice(&joint);
        }
        steps += 1;
    }
}

/// How a playout ranks a move by the mover's achievable range before it (`now`) and after it:
/// below the rest if it lowers the maximum, above them if it raises the minimum, and highest if
/// it secures the maximum.
fn tier(now: Option<ScoreRange>, after: Option<ScoreRange>) -> i8 {
    let (Some(now), Some(after)) = (now, after) else { return if after.is_none() { -1 } else { 0 } };
    if after.max < now.max {
        -1
    } else if after.min >= now.max && after.min > now.min {
        2
    } else if after.min > now.min {
        1
    } else {
        0
    }
}

/// Every role's score in `state` (0 where the rules give no single value).
pub(super) fn scores<M: StateMachine>(m: &mut M, state: &M::State) -> Vec<u8> {
    (0..m.roles().len()).map(|r| score(&m.goal(state, r))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: u32, max: u32) -> Option<ScoreRange> {
        Some(ScoreRange { min, max })
    }

    #[test]
    fn a_move_is_ranked_by_what_it_does_to_the_movers_range() {
        let open = range(0, 100);
        assert_eq!(tier(open, range(0, 100)), 0, "nothing changes");
        assert_eq!(tier(open, range(0, 50)), -1, "the best is lost");
        assert_eq!(tier(open, None), -1, "nothing is left");
        assert_eq!(tier(open, range(50, 100)), 1, "a floor is gained");
        assert_eq!(tier(open, range(100, 100)), 2, "the best is secured (a win)");
        assert_eq!(tier(range(50, 100), range(100, 100)), 2);
        assert_eq!(tier(range(50, 100), range(50, 50)), -1, "a draw given away");
        assert_eq!(tier(range(50, 50), range(50, 50)), 0, "a decided score stays decided");
        assert_eq!(tier(None, range(0, 100)), 0);
    }
}
