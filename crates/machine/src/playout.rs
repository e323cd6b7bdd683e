//! Random playouts: play uniformly random joint moves until the game ends, and aggregate many
//! playouts into reproducible statistics (a seeded [`SmallRng`]).
//!
//! A playout ends in a terminal state, at the step limit, or in a non-terminal state where some
//! role has no legal move (a fault of the rules, reported as [`PlayoutEnd::NoLegalMove`]). The final
//! state's goal values are reported per role as `Result`s, so a faulty goal (none or several
//! values) shows up as an error instead of a panic.

use std::fmt;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::{MachineError, StateMachine};

/// How a playout ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum PlayoutEnd {
    /// A terminal state was reached.
    Terminal,
    /// The step limit was reached in a non-terminal state.
    StepLimit,
    /// Role `role` (an index into the roles) had no legal move in a non-terminal state.
    NoLegalMove {
        /// The role without a legal move.
        role: usize,
    },
}

/// The outcome of one random playout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Playout<S> {
    /// Joint moves played (state transitions).
    pub length: u32,
    /// Why it stopped.
    pub end: PlayoutEnd,
    /// The final state's goal value per role, or the engine's complaint about it.
    pub goals: Vec<Result<u32, MachineError>>,
    /// The state the playout stopped in.
    pub final_state: S,
}

impl<S> Playout<S> {
    /// Whether the playout ended in a terminal state.
    pub fn is_terminal(&self) -> bool {
        self.end == PlayoutEnd::Terminal
    }
}

/// Plays uniformly random joint moves from `state` until a terminal state, `max_steps` joint
/// moves, or a role without a legal move; engine errors abort the playout.
pub fn random_playout<M: StateMachine, R: Rng + ?Sized>(
    m: &mut M,
    state: &M::State,
    rng: &mut R,
    max_steps: u32,
) -> Result<Playout<M::State>, MachineError> {
    let mut state = state.clone();
    let mut length = 0;
    let end = loop {
        if m.is_terminal(&state)? {
            break PlayoutEnd::Terminal;
        }
        if length >= max_steps {
            break PlayoutEnd::StepLimit;
        }
        match random_joint_move(m, &state, rng)? {
            Choice::Moves(joint) => state = m.next_state(&state, &joint)?,
            Choice::Stuck(role) => break PlayoutEnd::NoLegalMove { role },
        }
        length += 1;
    };
    let goals = (0..m.roles().len()).map(|role| m.goal(&state, role)).collect();
    Ok(Playout { length, end, goals, final_state: state })
}

/// The states of one random game from `state`, `state` first: it ends at a terminal state, at a
/// state where some role has no legal move, or after `max_steps` joint moves. Moves are drawn as
/// [`random_playout`] draws them, so a seed gives the same game.
pub fn random_trajectory<M: StateMachine, R: Rng + ?Sized>(
    m: &mut M,
    state: &M::State,
    rng: &mut R,
    max_steps: usize,
) -> Result<Vec<M::State>, MachineError> {
    let mut states = vec![state.clone()];
    while states.len() <= max_steps {
        let state = &states[states.len() - 1];
        if m.is_terminal(state)? {
            break;
        }
        match random_joint_move(m, state, rng)? {
            Choice::Moves(joint) => {
                let next = m.next_state(state, &joint)?;
                states.push(next);
            }
            Choice::Stuck(_) => break,
        }
    }
    Ok(states)
}

/// A random joint move, or the first role that has none.
enum Choice<Mv> {
    Moves(Vec<Mv>),
    Stuck(usize),
}

/// Picks one legal move per role uniformly at random.
fn random_joint_move<M: StateMachine, R: Rng + ?Sized>(
    m: &mut M,
    state: &M::State,
    rng: &mut R,
) -> Result<Choice<M::Move>, MachineError> {
    let roles = m.roles().len();
    let mut joint = Vec::with_capacity(roles);
    for role in 0..roles {
        let mut legal = m.legal_moves(state, role)?;
        if legal.is_empty() {
            return Ok(Choice::Stuck(role));
        }
        let pick = rng.random_range(0..legal.len());
        joint.push(legal.swap_remove(pick));
    }
    Ok(Choice::Moves(joint))
}

/// Aggregated results of many random playouts from the initial state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayoutStats {
    /// The role names, indexing the per-role fields.
    pub roles: Vec<String>,
    /// The seed of the [`SmallRng`] that chose the moves.
    pub seed: u64,
    /// Playouts run.
    pub count: u64,
    /// Playouts that reached a terminal state.
    pub terminal: u64,
    /// Playouts stopped by the step limit.
    pub step_limit: u64,
    /// Playouts that stopped because a role had no legal move.
    pub no_legal_move: u64,
    /// States visited: state transitions summed over all playouts.
    pub states: u64,
    /// Mean playout length in joint moves.
    pub average_length: f64,
    /// Per role: mean goal over terminal playouts whose goal was well defined (`None` if none).
    pub average_goals: Vec<Option<f64>>,
    /// Per role: terminal playouts where the goal was faulty (no value or several).
    pub goal_errors: Vec<u64>,
    /// Wall-clock time of the whole run in seconds.
    pub elapsed_secs: f64,
    /// Playouts per second.
    pub playouts_per_sec: f64,
    /// States visited per second.
    pub states_per_sec: f64,
}

/// Runs `count` random playouts of at most `max_steps` joint moves from the initial state, with
/// moves chosen by a [`SmallRng`] seeded with `seed`, so the same engine reproduces the same stats.
pub fn run_playouts<M: StateMachine>(
    m: &mut M,
    count: u64,
    seed: u64,
    max_steps: u32,
) -> Result<PlayoutStats, MachineError> {
    let start = Instant::now();
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = m.initial_state();
    let mut tally = PlayoutTally::new(m.roles().len());
    for _ in 0..count {
        tally.add(&random_playout(m, &initial, &mut rng, max_steps)?);
    }
    Ok(tally.stats(m.roles().to_vec(), seed, start.elapsed()))
}

/// Random playouts for `secs` seconds of wall time (at least one), in runs of
/// [`StateMachine::run_playouts`] sized from the ones before, so that an engine's fast path is
/// used and the total ends close to `secs` whatever a playout costs. Run `i` is seeded `seed + i`.
pub fn run_playouts_for<M: StateMachine>(
    m: &mut M,
    secs: f64,
    seed: u64,
    max_steps: u32,
) -> Result<PlayoutStats, MachineError> {
    let start = Instant::now();
    let mut total: Option<PlayoutStats> = None;
    let mut count = 1u64;
    for run in 0.. {
        let stats = m.run_playouts(count, seed.wrapping_add(run), max_steps)?;
        let per_playout = stats.elapsed_secs / stats.count.max(1) as f64;
        total = Some(match total {
            Some(t) => t.combine(&stats),
            None => stats,
        });
        let left = secs - start.elapsed().as_secs_f64();
        if left <= 0.0 {
            break;
        }
        // Grow by at most 4× a run while the cost is still being learned; aim a run at the time
        // left, or at a quarter of the whole while more than that is left.
        let aim = left.min((secs / 4.0).max(left / 2.0));
        count = ((aim / per_playout.max(1e-9)) as u64).clamp(1, count.saturating_mul(4).max(4));
    }
    let mut total = total.expect("at least one run");
    total.set_elapsed(start.elapsed().as_secs_f64());
    Ok(total)
}

impl PlayoutStats {
    /// The statistics of this run and `other` together (the seed is this run's; elapsed times
    /// add up).
    pub fn combine(&self, other: &PlayoutStats) -> PlayoutStats {
        let goals_counted = |s: &PlayoutStats, role: usize| s.terminal - s.goal_errors.get(role).copied().unwrap_or(0);
        let average_goals = (0..self.average_goals.len())
            .map(|role| {
                let (n1, n2) = (goals_counted(self, role), goals_counted(other, role));
                let sum = |s: &PlayoutStats, n: u64| s.average_goals[role].map_or(0.0, |g| g * n as f64);
                (n1 + n2 > 0).then(|| (sum(self, n1) + sum(other, n2)) / (n1 + n2) as f64)
            })
            .collect();
        let mut goal_errors = self.goal_errors.clone();
        add_all(&mut goal_errors, &other.goal_errors);
        let (count, states) = (self.count + other.count, self.states + other.states);
        let mut combined = PlayoutStats {
            roles: self.roles.clone(),
            seed: self.seed,
            count,
            terminal: self.terminal + other.terminal,
            step_limit: self.step_limit + other.step_limit,
            no_legal_move: self.no_legal_move + other.no_legal_move,
            states,
            average_length: ratio(states, count).unwrap_or(0.0),
            average_goals,
            goal_errors,
            elapsed_secs: 0.0,
            playouts_per_sec: 0.0,
            states_per_sec: 0.0,
        };
        combined.set_elapsed(self.elapsed_secs + other.elapsed_secs);
        combined
    }

    /// Sets the elapsed time and the rates that follow from it.
    fn set_elapsed(&mut self, secs: f64) {
        self.elapsed_secs = secs;
        self.playouts_per_sec = per_second(self.count, secs);
        self.states_per_sec = per_second(self.states, secs);
    }
}

/// Running totals over playouts, turned into [`PlayoutStats`] at the end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayoutTally {
    count: u64,
    terminal: u64,
    step_limit: u64,
    no_legal_move: u64,
    states: u64,
    goal_sums: Vec<u64>,
    goal_counts: Vec<u64>,
    goal_errors: Vec<u64>,
}

impl PlayoutTally {
    /// An empty tally for a game with `roles` roles.
    pub fn new(roles: usize) -> Self {
        let zeros = vec![0; roles];
        PlayoutTally { goal_sums: zeros.clone(), goal_counts: zeros.clone(), goal_errors: zeros, ..Self::default() }
    }

    /// Adds one playout.
    pub fn add<S>(&mut self, p: &Playout<S>) {
        self.count += 1;
        self.states += u64::from(p.length);
        match p.end {
            PlayoutEnd::Terminal => self.terminal += 1,
            PlayoutEnd::StepLimit => self.step_limit += 1,
            PlayoutEnd::NoLegalMove { .. } => self.no_legal_move += 1,
        }
        if p.is_terminal() {
            self.add_goals(&p.goals);
        }
    }

    /// Adds a terminal playout's goals.
    fn add_goals(&mut self, goals: &[Result<u32, MachineError>]) {
        let per_role = self.goal_sums.iter_mut().zip(&mut self.goal_counts).zip(&mut self.goal_errors);
        for (((sum, count), errors), goal) in per_role.zip(goals) {
            match goal {
                Ok(v) => {
                    *sum += u64::from(*v);
                    *count += 1;
                }
                Err(_) => *errors += 1,
            }
        }
    }

    /// Adds another tally (e.g. from another thread) to this one.
    pub fn merge(&mut self, other: &PlayoutTally) {
        self.count += other.count;
        self.terminal += other.terminal;
        self.step_limit += other.step_limit;
        self.no_legal_move += other.no_legal_move;
        self.states += other.states;
        add_all(&mut self.goal_sums, &other.goal_sums);
        add_all(&mut self.goal_counts, &other.goal_counts);
        add_all(&mut self.goal_errors, &other.goal_errors);
    }

    /// The statistics of the playouts added so far, which took `elapsed`.
    pub fn stats(&self, roles: Vec<String>, seed: u64, elapsed: Duration) -> PlayoutStats {
        let secs = elapsed.as_secs_f64();
        let average_goals = self.goal_sums.iter().zip(&self.goal_counts).map(|(&sum, &n)| ratio(sum, n)).collect();
        PlayoutStats {
            roles,
            seed,
            count: self.count,
            terminal: self.terminal,
            step_limit: self.step_limit,
            no_legal_move: self.no_legal_move,
            states: self.states,
            average_length: ratio(self.states, self.count).unwrap_or(0.0),
            average_goals,
            goal_errors: self.goal_errors.clone(),
            elapsed_secs: secs,
            playouts_per_sec: per_second(self.count, secs),
            states_per_sec: per_second(self.states, secs),
        }
    }
}

/// Adds `other` element-wise into `acc` (lengths are the number of roles).
fn add_all(acc: &mut [u64], other: &[u64]) {
    for (a, b) in acc.iter_mut().zip(other) {
        *a += b;
    }
}

/// `sum / n`, or `None` when `n` is 0.
fn ratio(sum: u64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum as f64 / n as f64)
}

/// `n / secs`, or 0 when no time was measured.
fn per_second(n: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        n as f64 / secs
    } else {
        0.0
    }
}

impl fmt::Display for PlayoutStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} playouts in {:.3} s ({:.1} playouts/s, {:.0} states/s), average length {:.2}",
            self.count, self.elapsed_secs, self.playouts_per_sec, self.states_per_sec, self.average_length
        )?;
        for ((role, goal), errors) in self.roles.iter().zip(&self.average_goals).zip(&self.goal_errors) {
            match goal {
                Some(g) => write!(f, "\n  {role}: average goal {g:.2}")?,
                None => write!(f, "\n  {role}: no goal value")?,
            }
            if *errors > 0 {
                write!(f, " ({errors} faulty goals)")?;
            }
        }
        if self.step_limit > 0 {
            write!(f, "\n  {} playouts hit the step limit", self.step_limit)?;
        }
        if self.no_legal_move > 0 {
            write!(f, "\n  {} playouts stopped: a role had no legal move", self.no_legal_move)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::{Counter, Nim, NimState};

    fn rng() -> SmallRng {
        SmallRng::seed_from_u64(7)
    }

    #[test]
    fn nim_playout_ends_terminal_with_a_winner() {
        let mut m = Nim::new(5);
        let start = m.initial_state();
        let p = random_playout(&mut m, &start, &mut rng(), 100).expect("playout");
        assert!(p.is_terminal());
        assert_eq!(p.final_state.pile, 0);
        assert!((3..=5).contains(&p.length), "length {}", p.length);
        let goals: Vec<u32> = p.goals.iter().map(|g| g.clone().expect("goal")).collect();
        assert_eq!(goals.iter().sum::<u32>(), 100);
        // The loser is the player to move in the final state.
        assert_eq!(goals[p.final_state.mover], 0);
    }

    #[test]
    fn a_trajectory_is_the_playout_state_by_state() {
        let mut m = Nim::new(9);
        let start = m.initial_state();
        let states = random_trajectory(&mut m, &start, &mut rng(), 100).expect("trajectory");
        let p = random_playout(&mut m, &start, &mut rng(), 100).expect("playout");
        assert_eq!(states.len(), p.length as usize + 1);
        assert_eq!((&states[0], states.last()), (&start, Some(&p.final_state)));
        assert_eq!(random_trajectory(&mut m, &start, &mut rng(), 2).expect("trajectory").len(), 3);
    }

    #[test]
    fn step_limit_stops_early() {
        let mut m = Nim::new(50);
        let start = m.initial_state();
        let p = random_playout(&mut m, &start, &mut rng(), 3).expect("playout");
        assert_eq!(p.end, PlayoutEnd::StepLimit);
        assert_eq!(p.length, 3);
        assert_eq!(p.goals, [Ok(50), Ok(50)]);
    }

    #[test]
    fn a_role_without_moves_is_reported() {
        // Black, waiting, has no legal move while the pile holds 3 counters: right at the start.
        let mut m = Nim::new(3).stuck_at(3);
        let start = m.initial_state();
        let p = random_playout(&mut m, &start, &mut rng(), 100).expect("playout");
        assert_eq!(p.end, PlayoutEnd::NoLegalMove { role: 1 });
        assert_eq!(p.length, 0);
        assert_eq!(p.final_state, NimState { pile: 3, mover: 0 });
    }

    #[test]
    fn faulty_goals_are_errors_not_panics() {
        let mut m = Nim::new(2).ambiguous_goal();
        let start = m.initial_state();
        let p = random_playout(&mut m, &start, &mut rng(), 100).expect("playout");
        assert!(matches!(p.goals[1], Err(MachineError::AmbiguousGoal { .. })));
    }

    #[test]
    fn combined_runs_count_as_one() {
        let (a, b) = (run_playouts(&mut Nim::new(9), 30, 1, 100), run_playouts(&mut Nim::new(9), 50, 2, 100));
        let (a, b) = (a.expect("stats"), b.expect("stats"));
        let both = a.combine(&b);
        assert_eq!((both.count, both.terminal, both.states), (80, 80, a.states + b.states));
        for role in 0..2 {
            let sum = |s: &PlayoutStats| s.average_goals[role].expect("goals") * s.count as f64;
            let want = (sum(&a) + sum(&b)) / 80.0;
            assert!((both.average_goals[role].expect("goals") - want).abs() < 1e-9);
        }
        assert!((both.elapsed_secs - a.elapsed_secs - b.elapsed_secs).abs() < 1e-12);
    }

    #[test]
    fn playouts_for_a_time_take_about_that_time() {
        // A playout of the counter costs microseconds: the runs must grow to fill the time
        // instead of stopping after the first.
        let stats = run_playouts_for(&mut Counter::new(10), 0.2, 3, 100).expect("stats");
        assert!(stats.elapsed_secs >= 0.2, "{}", stats.elapsed_secs);
        assert!(stats.count > 1000, "{} playouts", stats.count);
        assert_eq!(stats.terminal, stats.count);
    }

    #[test]
    fn stats_are_reproducible_and_consistent() {
        let a = run_playouts(&mut Counter::new(10), 200, 42, 100).expect("stats");
        let b = run_playouts(&mut Counter::new(10), 200, 42, 100).expect("stats");
        assert_eq!((a.states, &a.average_goals), (b.states, &b.average_goals));
        assert_eq!((a.count, a.terminal), (200, 200));
        // Each joint move adds 2..=4, so 3 to 5 moves reach 10.
        assert!((3.0..=5.0).contains(&a.average_length), "{}", a.average_length);
        assert_eq!(a.states as f64, a.average_length * 200.0);
        let goals: Vec<f64> = a.average_goals.iter().map(|g| g.expect("goal")).collect();
        assert!((goals[0] + goals[1] - 100.0).abs() < 1e-9, "{goals:?}");
        let c = run_playouts(&mut Counter::new(10), 200, 43, 100).expect("stats");
        assert_ne!((a.states, &a.average_goals), (c.states, &c.average_goals));
    }

    #[test]
    fn stats_count_faults_separately() {
        let s = run_playouts(&mut Nim::new(6).ambiguous_goal(), 50, 1, 100).expect("stats");
        assert_eq!(s.terminal, 50);
        assert_eq!(s.goal_errors, [0, 50]);
        assert_eq!(s.average_goals[1], None);
        assert!(s.average_goals[0].is_some());
        let stuck = run_playouts(&mut Nim::new(6).stuck_at(6), 5, 1, 100).expect("stats");
        assert_eq!((stuck.no_legal_move, stuck.states, stuck.average_goals[0]), (5, 0, None));
        let text = stuck.to_string();
        assert!(text.contains("5 playouts stopped: a role had no legal move"), "{text}");
    }

    #[test]
    fn tallies_merge() {
        let mut m = Nim::new(5);
        let start = m.initial_state();
        let mut r = rng();
        let (mut one, mut two, mut all) = (PlayoutTally::new(2), PlayoutTally::new(2), PlayoutTally::new(2));
        for i in 0..10 {
            let p = random_playout(&mut m, &start, &mut r, 100).expect("playout");
            if i % 2 == 0 { &mut one } else { &mut two }.add(&p);
            all.add(&p);
        }
        one.merge(&two);
        assert_eq!(one, all);
    }
}
