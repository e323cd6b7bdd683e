//! Simultaneous moves that end the game. Where every joint move from a state leads to a terminal
//! state (a one-shot game such as the two-thirds guess or the prisoner's dilemma, or the last
//! round of an iterated one), the state is a game in normal form whose payoffs the machine reads
//! directly, and a tree search has nothing to add below it. A tree's most visited move is one
//! pure choice, which an opponent can exploit where the game has no pure equilibrium (matching
//! pennies, Colonel Blotto); here every role's strategy is found by removing strictly dominated
//! moves and then regret matching (each role plays a move in proportion to how much it regrets
//! not having played it, against the others doing the same), and the move is drawn from it. In
//! a game of two roles whose scores add up to the same total the average strategies converge to
//! a Nash equilibrium; in others, to a coarse correlated equilibrium, whose share for each role
//! is still a strategy that does not regret any move on average.

use machine::{MachineError, StateMachine};
use rand::rngs::SmallRng;
use rand::Rng;
use std::time::Instant;

/// Joint moves beyond which a state is not read as a normal form (each one costs a next state
/// and its goals): 101 guesses for each of two roles fit, four roles of them do not.
pub const MAX_JOINT_MOVES: usize = 1 << 16;

/// Regret-matching rounds at most: far more than the games that fit need to settle within a
/// point, and few enough to take milliseconds.
const MAX_ROUNDS: u32 = 4000;

/// Moves whose equilibrium share is below this are not played: what regret matching leaves on
/// a move it is still unlearning.
const NEGLIGIBLE: f64 = 0.02;

/// A game in normal form: each role's legal moves, and every role's score for each joint move.
#[derive(Debug, Clone)]
pub struct NormalForm<Mv> {
    moves: Vec<Vec<Mv>>,
    /// Scores by joint move (mixed radix over the roles' move counts, the first role's
    /// index varying slowest), every role's score in turn.
    scores: Vec<u8>,
}

impl<Mv: Clone> NormalForm<Mv> {
    /// The normal form of `state` on `m`: `None` unless at least two roles have a choice there,
    /// the joint moves number at most `limit`, every one of them ends the game, and reading them
    /// finishes before `deadline`. A state that is not the last turn costs one next state.
    pub fn read<M: StateMachine<Move = Mv>>(
        m: &mut M,
        state: &M::State,
        limit: usize,
        deadline: Instant,
    ) -> Result<Option<NormalForm<Mv>>, MachineError> {
        let roles = m.roles().len();
        let mut moves = Vec::with_capacity(roles);
        for r in 0..roles {
            moves.push(m.legal_moves(state, r)?);
        }
        let choosing = moves.iter().filter(|l| l.len() > 1).count();
        let count = moves.iter().try_fold(1usize, |n, l| n.checked_mul(l.len()).filter(|&n| n <= limit));
        let Some(count) = count.filter(|&n| choosing >= 2 && n > 0) else { return Ok(None) };
        let mut scores = Vec::with_capacity(count * roles);
        let mut at = vec![0usize; roles];
        let mut joint: Vec<Mv> = moves.iter().map(|l| l[0].clone()).collect();
        for k in 0..count {
            // A reasoner's next state can take a millisecond: look at the clock often enough
            // that reading never runs far past the deadline.
            if k % 16 == 15 && Instant::now() >= deadline {
                return Ok(None);
            }
            let next = m.next_state(state, &joint)?;
            if !m.is_terminal(&next)? {
                return Ok(None);
            }
            for r in 0..roles {
                scores.push(m.played_goal(&next, r)?.min(100) as u8);
            }
            step(&mut at, |r| moves[r].len());
            for ((mv, &i), l) in joint.iter_mut().zip(&at).zip(&moves) {
                *mv = l[i].clone();
            }
        }
        Ok(Some(NormalForm { moves, scores }))
    }

    /// A normal form with `moves` for each role and `scores` listed by joint move as
    /// [`read`](Self::read) lists them; `None` if the counts do not match.
    pub fn new(moves: Vec<Vec<Mv>>, scores: Vec<u8>) -> Option<NormalForm<Mv>> {
        let count: usize = moves.iter().map(Vec::len).product();
        (count > 0 && scores.len() == count * moves.len()).then_some(NormalForm { moves, scores })
    }

    /// The legal moves of `role`.
    pub fn moves(&self, role: usize) -> &[Mv] {
        &self.moves[role]
    }

    /// The number of roles.
    fn roles(&self) -> usize {
        self.moves.len()
    }

    /// The index of the joint move whose role `r` plays its move `index[r]`.
    fn joint_index(&self, index: &[usize]) -> usize {
        index.iter().zip(&self.moves).fold(0, |k, (&i, l)| k * l.len() + i)
    }

    /// The score of `role` when each role `r` plays its move `index[r]`.
    fn score(&self, index: &[usize], role: usize) -> f64 {
        f64::from(self.scores[self.joint_index(index) * self.roles() + role])
    }

    /// Every role's strategy, a share for each of its moves: strictly dominated moves removed
    /// (repeatedly, as the removal of one role's moves can make another's dominated), then
    /// regret matching on what is left for at most [`MAX_ROUNDS`] rounds or until `deadline`.
    pub fn equilibrium(&self, deadline: Instant) -> Vec<Vec<f64>> {
        let alive = self.undominated(deadline);
        let roles = self.roles();
        let mut regrets: Vec<Vec<f64>> = alive.iter().map(|a| vec![0.0; a.len()]).collect();
        let mut sums: Vec<Vec<f64>> = regrets.clone();
        let mut values: Vec<Vec<f64>> = regrets.clone();
        let mut current: Vec<Vec<f64>> = regrets.clone();
        for round in 1..=MAX_ROUNDS {
            for (r, strategy) in current.iter_mut().enumerate() {
                matched(&regrets[r], strategy);
            }
            self.values_against(&alive, &current, &mut values);
            for r in 0..roles {
                let expected: f64 = values[r].iter().zip(&current[r]).map(|(v, p)| v * p).sum();
                // Regret matching+: regrets never go below zero, and later rounds weigh more in
                // the average, which settles in far fewer rounds than plain regret matching.
                for (regret, v) in regrets[r].iter_mut().zip(&values[r]) {
                    *regret = (*regret + v - expected).max(0.0);
                }
                for (sum, p) in sums[r].iter_mut().zip(&current[r]) {
                    *sum += f64::from(round) * p;
                }
            }
            if round % 64 == 0 && Instant::now() >= deadline {
                break;
            }
        }
        let mut strategies: Vec<Vec<f64>> = self.moves.iter().map(|l| vec![0.0; l.len()]).collect();
        for r in 0..roles {
            let total: f64 = sums[r].iter().sum();
            for (k, &i) in alive[r].iter().enumerate() {
                strategies[r][i] = if total > 0.0 { sums[r][k] / total } else { 1.0 / alive[r].len() as f64 };
            }
        }
        strategies
    }

    /// Each role's moves that survive the repeated removal of strictly dominated moves (a move
    /// that scores less than another of the same role against every choice the others have
    /// left); the removal stops where it is at `deadline`.
    fn undominated(&self, deadline: Instant) -> Vec<Vec<usize>> {
        let roles = self.roles();
        let mut alive: Vec<Vec<usize>> = self.moves.iter().map(|l| (0..l.len()).collect()).collect();
        let mut changed = true;
        while changed && Instant::now() < deadline {
            changed = false;
            for r in 0..roles {
                let others = profiles(&alive, r);
                let column = |mv: usize| -> Vec<f64> {
                    others
                        .iter()
                        .map(|o| {
                            let mut index = o.clone();
                            index[r] = mv;
                            self.score(&index, r)
                        })
                        .collect()
                };
                let columns: Vec<Vec<f64>> = alive[r].iter().map(|&mv| column(mv)).collect();
                let dominated = |a: usize| {
                    (0..columns.len()).any(|b| b != a && columns[b].iter().zip(&columns[a]).all(|(x, y)| x > y))
                };
                let keep: Vec<usize> = (0..columns.len()).filter(|&a| !dominated(a)).collect();
                if keep.len() < alive[r].len() {
                    alive[r] = keep.iter().map(|&a| alive[r][a]).collect();
                    changed = true;
                }
            }
        }
        alive
    }

    /// For every role and each of its moves still `alive`, its expected score when the others
    /// play the `strategies` (shares over their alive moves), into `values`.
    fn values_against(&self, alive: &[Vec<usize>], strategies: &[Vec<f64>], values: &mut [Vec<f64>]) {
        for v in values.iter_mut() {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        let roles = self.roles();
        let mut at = vec![0usize; roles];
        let mut index = vec![0usize; roles];
        loop {
            for (i, (&k, a)) in index.iter_mut().zip(at.iter().zip(alive)) {
                *i = a[k];
            }
            for r in 0..roles {
                let weight: f64 = (0..roles).filter(|&j| j != r).map(|j| strategies[j][at[j]]).product();
                if weight > 0.0 {
                    values[r][at[r]] += weight * self.score(&index, r);
                }
            }
            if !step(&mut at, |r| alive[r].len()) {
                return;
            }
        }
    }

    /// A move of `role` drawn from its `strategy` (as [`equilibrium`](Self::equilibrium) gives
    /// it), negligible shares left out.
    pub fn draw(&self, role: usize, strategy: &[f64], rng: &mut SmallRng) -> Mv {
        let kept = |p: f64| if p >= NEGLIGIBLE { p } else { 0.0 };
        let total: f64 = strategy.iter().map(|&p| kept(p)).sum();
        let best = strategy.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(i, _)| i);
        if total <= 0.0 {
            return self.moves[role][best].clone();
        }
        let kept: Vec<f64> = strategy.iter().map(|&p| kept(p)).collect();
        let i = weighted_index(&kept, rng.random_range(0.0..total)).unwrap_or(best);
        self.moves[role][i].clone()
    }
}

/// The index whose share of the line laid end to end by `weights` (none negative) holds `at`
/// (from 0 up to their sum): each index drawn in proportion to its weight when `at` is uniform
/// over that range. `None` where `at` lies past the end.
pub(crate) fn weighted_index(weights: &[f64], at: f64) -> Option<usize> {
    let mut left = at;
    for (i, &w) in weights.iter().enumerate() {
        left -= w;
        if w > 0.0 && left < 0.0 {
            return Some(i);
        }
    }
    None
}

/// The regret-matching strategy for `regrets`: shares proportional to the positive regrets, or
/// uniform where none is positive.
fn matched(regrets: &[f64], strategy: &mut [f64]) {
    let positive: f64 = regrets.iter().map(|r| r.max(0.0)).sum();
    for (p, &r) in strategy.iter_mut().zip(regrets) {
        *p = matched_share(r, positive, regrets.len());
    }
}

/// Regret matching's share for a move of cumulative regret `regret`, among `count` moves whose
/// positive regrets add up to `positive`: in proportion to its positive regret, or uniform while
/// none is positive.
pub(crate) fn matched_share(regret: f64, positive: f64, count: usize) -> f64 {
    if positive > 0.0 {
        regret.max(0.0) / positive
    } else {
        1.0 / count as f64
    }
}

/// Every combination of the other roles' alive moves (role `skip`'s entry left 0), as move
/// indices per role.
fn profiles(alive: &[Vec<usize>], skip: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut at = vec![0usize; alive.len()];
    loop {
        out.push(at.iter().zip(alive).enumerate().map(|(r, (&k, a))| if r == skip { 0 } else { a[k] }).collect());
        if !step(&mut at, |r| if r == skip { 1 } else { alive[r].len() }) {
            return out;
        }
    }
}

/// Moves the counter `at` to its next combination, position `r` running over `0..len(r)` and
/// the last position fastest (the order joint moves are listed in); false once every
/// combination has been passed, with `at` back at all zeros.
fn step(at: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for r in (0..at.len()).rev() {
        at[r] += 1;
        if at[r] < len(r) {
            return true;
        }
        at[r] = 0;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use propnet::PropnetMachine;
    use rand::SeedableRng;
    use std::sync::Arc;
    use std::time::Duration;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    /// A two-role game from the row role's scores and the column role's.
    fn bimatrix(rows: usize, cols: usize, row: &[u8], col: &[u8]) -> NormalForm<usize> {
        let scores = row.iter().zip(col).flat_map(|(&a, &b)| [a, b]).collect();
        NormalForm::new(vec![(0..rows).collect(), (0..cols).collect()], scores).expect("sizes match")
    }

    fn close(strategy: &[f64], expected: &[f64]) -> bool {
        strategy.iter().zip(expected).all(|(a, b)| (a - b).abs() < 0.03)
    }

    #[test]
    fn a_dominant_move_is_the_whole_strategy() {
        // Prisoner's dilemma, move 0 cooperate, 1 defect: defecting is better against either.
        let g = bimatrix(2, 2, &[60, 0, 100, 20], &[60, 100, 0, 20]);
        let s = g.equilibrium(soon());
        assert_eq!(s, vec![vec![0.0, 1.0], vec![0.0, 1.0]]);
    }

    #[test]
    fn removal_repeats_as_dominated_moves_go() {
        // The column's move 1 is dominated only once the row's move 2 is gone.
        let row = [50, 50, 60, 60, 0, 0];
        let col = [40, 30, 40, 30, 10, 90];
        let g = bimatrix(3, 2, &row, &col);
        let s = g.equilibrium(soon());
        assert!(close(&s[0], &[0.0, 1.0, 0.0]), "{s:?}");
        assert!(close(&s[1], &[1.0, 0.0]), "{s:?}");
    }

    #[test]
    fn matching_pennies_and_rock_paper_scissors_mix_evenly() {
        let g = bimatrix(2, 2, &[100, 0, 0, 100], &[0, 100, 100, 0]);
        let s = g.equilibrium(soon());
        assert!(close(&s[0], &[0.5, 0.5]) && close(&s[1], &[0.5, 0.5]), "{s:?}");
        // Rock, paper, scissors: a win 100, a draw 50, a loss 0.
        let row = [50, 0, 100, 100, 50, 0, 0, 100, 50];
        let col: Vec<u8> = row.iter().map(|v| 100 - v).collect();
        let s = bimatrix(3, 3, &row, &col).equilibrium(soon());
        let third = 1.0 / 3.0;
        assert!(close(&s[0], &[third; 3]) && close(&s[1], &[third; 3]), "{s:?}");
    }

    #[test]
    fn an_uneven_zero_sum_game_gets_its_uneven_mix() {
        // The row wins 100 on (0, 0) and 50 on (1, 1), nothing otherwise: it plays move 0 a
        // third of the time, and so does the column, whose value is 200/3 for either move.
        let row = [100, 0, 0, 50];
        let col: Vec<u8> = row.iter().map(|v| 100 - v).collect();
        let s = bimatrix(2, 2, &row, &col).equilibrium(soon());
        assert!(close(&s[0], &[1.0 / 3.0, 2.0 / 3.0]) && close(&s[1], &[1.0 / 3.0, 2.0 / 3.0]), "{s:?}");
    }

    #[test]
    fn three_roles_each_get_a_strategy() {
        // Each role scores 100 by picking the move nobody else picks, if the others agree:
        // odd one out. Every strategy is a distribution over two moves.
        let mut scores = Vec::new();
        for a in 0..2u8 {
            for b in 0..2u8 {
                for c in 0..2u8 {
                    for me in [a, b, c] {
                        let alone = [a, b, c].iter().filter(|&&x| x == me).count() == 1;
                        scores.push(if alone { 100 } else { 0 });
                    }
                }
            }
        }
        let g = NormalForm::new(vec![vec![0, 1]; 3], scores).expect("sizes match");
        for s in g.equilibrium(soon()) {
            assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-9 && s.iter().all(|&p| p >= 0.0), "{s:?}");
        }
    }

    #[test]
    fn draws_follow_the_strategy_and_leave_out_negligible_shares() {
        let g = bimatrix(3, 1, &[0, 0, 0], &[0, 0, 0]);
        let mut rng = SmallRng::seed_from_u64(1);
        let mut counts = [0usize; 3];
        for _ in 0..3000 {
            counts[g.draw(0, &[0.75, 0.25, 0.001], &mut rng)] += 1;
        }
        assert_eq!(counts[2], 0);
        assert!((2100..2400).contains(&counts[0]), "{counts:?}");
    }

    const PENNIES: &str = "
        (role even) (role odd)
        (init start)
        (<= (legal ?r (show ?s)) (role ?r) (side ?s))
        (side heads) (side tails)
        (<= (next (shown ?r ?s)) (does ?r (show ?s)))
        (<= terminal (true (shown even ?s)))
        (<= same (true (shown even ?s)) (true (shown odd ?s)))
        (<= (goal even 100) same) (<= (goal even 0) (not same))
        (<= (goal odd 0) same) (<= (goal odd 100) (not same))";

    fn machine(text: &str) -> PropnetMachine {
        let net = testkit::compile(&testkit::load("game", text));
        PropnetMachine::from_program(Arc::new(propnet::Program::new(&net)))
    }

    #[test]
    fn a_one_shot_game_is_read_from_its_rules() {
        let mut m = machine(PENNIES);
        let start = m.initial_state();
        let g = NormalForm::read(&mut m, &start, MAX_JOINT_MOVES, soon()).unwrap().expect("one shot");
        assert_eq!(g.moves(0).len(), 2);
        let s = g.equilibrium(soon());
        assert!(close(&s[0], &[0.5, 0.5]) && close(&s[1], &[0.5, 0.5]), "{s:?}");
        // Too many joint moves for the limit: not read.
        assert!(NormalForm::read(&mut m, &start, 3, soon()).unwrap().is_none());
    }

    #[test]
    fn a_turn_taking_game_or_an_early_round_is_not_a_normal_form() {
        let mut m = machine(games::find("tictactoe").expect("bundled").text);
        let start = m.initial_state();
        assert!(NormalForm::read(&mut m, &start, MAX_JOINT_MOVES, soon()).unwrap().is_none());
        // Two rounds of pennies: the first does not end the game.
        let twice = PENNIES
            .replace(
                "(<= terminal (true (shown even ?s)))",
                "(<= (next second) (true start)) (<= (next done) (true second)) (<= terminal (true done))",
            )
            .replace("(does ?r (show ?s)))", "(does ?r (show ?s)) (true second))");
        let mut m = machine(&twice);
        let start = m.initial_state();
        assert!(NormalForm::read(&mut m, &start, MAX_JOINT_MOVES, soon()).unwrap().is_none());
        // Its last round is one.
        let joint = [m.legal_moves(&start, 0).unwrap()[0], m.legal_moves(&start, 1).unwrap()[0]];
        let last = m.next_state(&start, &joint).unwrap();
        assert!(NormalForm::read(&mut m, &last, MAX_JOINT_MOVES, soon()).unwrap().is_some());
    }
}
