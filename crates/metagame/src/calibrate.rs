//! What the playouts' tactics cost and bring in a game, and how much its moves' names say about
//! where they are played, measured from its initial state at the start of a match, so that the
//! player turns the tactics and the move averages off where they do not pay.

use crate::playout::{self, Lookahead, Settings};
use crate::Knowledge;
use analysis::GoalLatches;
use machine::StateMachine;
use propnet::{Net, Program, PropnetMachine};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use structures::bits::{self, Bits};

/// Playouts of each kind measured, at most (a slow game stops at its time budget first).
const MAX_PLAYOUTS: u64 = 4096;

/// The least share of playouts the tactics must change to be used.
const MIN_FIRED: f64 = 0.5;

/// The most times slower than plain ones tactical playouts may be.
const MAX_SLOWDOWN: f64 = 256.0;

/// How many standard errors above plain playouts' mean score a puzzle's tactical playouts must
/// score for the tactics to pay whatever their cost.
const MIN_SCORE_GAIN: f64 = 3.0;

/// Guided playouts with tactics against plain bit-sliced ones, from the initial state.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TacticsCost {
    /// Tactical playouts per second.
    pub tactical_per_s: f64,
    /// Plain random (bit-sliced) playouts per second.
    pub random_per_s: f64,
    /// The share of tactical playouts in which a tactic changed a move (a decisive move taken,
    /// a losing one avoided, or a move taken back because the next mover could win at once).
    pub fired: f64,
    /// Tactical playouts measured.
    pub playouts: u64,
    /// Where the game has one role: how many standard errors the tactical playouts' mean score
    /// is above the plain ones' (`None` with several roles, or where only one kind was played).
    pub score_gain: Option<f64>,
}

impl TacticsCost {
    /// The longest a measurement should take (half with tactics, half without): a slow game
    /// measures few playouts, but they are what it will play.
    pub const TRIAL: Duration = Duration::from_millis(1000);

    /// Whether the tactics are worth their cost: they change enough playouts, and playouts with
    /// them are not so slow that the tree starves, or (a puzzle) they score clearly more. A
    /// puzzle's search looks for one line: random playouts that end the game at the first
    /// misstep, however many, say little of where the best line goes, while playouts that
    /// avoid ending the game below what is still reachable play the puzzle as the line would.
    pub fn pays(&self) -> bool {
        self.fired >= MIN_FIRED && (self.affordable() || self.score_gain.is_some_and(|g| g >= MIN_SCORE_GAIN))
    }

    /// Whether the guided playouts are not so slow that the tree starves.
    pub fn affordable(&self) -> bool {
        self.tactical_per_s * MAX_SLOWDOWN >= self.random_per_s
    }

    /// The knowledge for playouts of `net` (compiled as `program`) with the goal latches `goals`:
    /// with the tactics if measuring them for `budget` shows that they pay, else without; and
    /// the measurement. The one way the player and `latchkey analyze` decide.
    pub fn choose(net: &Net, program: &Arc<Program>, goals: GoalLatches, budget: Duration) -> (Knowledge, TacticsCost) {
        let tactical = Knowledge::new(net, goals.clone(), true);
        let cost = TacticsCost::measure(program, &tactical, budget, 0);
        let knowledge = if cost.pays() { tactical } else { Knowledge::new(net, goals, false) };
        (knowledge, cost)
    }

    /// Plays tactical playouts with `knowledge` (which must have tactics) for half of `budget`,
    /// then plain ones for the other half, on one thread.
    pub fn measure(program: &Arc<Program>, knowledge: &Knowledge, budget: Duration, seed: u64) -> TacticsCost {
        let mut m = PropnetMachine::from_program(Arc::clone(program));
        let mut rng = SmallRng::seed_from_u64(seed);
        let guided = TacticsCost::guided(&mut m, &mut rng, knowledge, budget / 2);
        let initial = m.initial_state();
        let started = Instant::now();
        let settings = trial_settings(started + budget / 2);
        let starts = vec![initial; 64];
        let (mut random, mut scores) = (0u64, Vec::new());
        while random < MAX_PLAYOUTS * 16 && !settings.out_of_time() {
            for outcome in playout::bit_sliced(&mut m, &starts, &mut rng, &settings).iter().flatten() {
                random += 1;
                if let [score] = outcome.scores[..] {
                    scores.push(f64::from(score));
                }
            }
        }
        let random_per_s = random as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let score_gain = guided.1.zip(mean_error(&scores)).map(|((mean, se), (plain, plain_se))| {
            (mean - plain) / (se * se + plain_se * plain_se).sqrt().max(f64::MIN_POSITIVE)
        });
        TacticsCost { random_per_s, score_gain, ..guided.0 }
    }

    /// Plays `knowledge`'s guided playouts for `budget` on one thread, against plain ones known
    /// to run at `random_per_s` (measured before, as [`measure`](Self::measure) does).
    pub fn against(
        program: &Arc<Program>,
        knowledge: &Knowledge,
        budget: Duration,
        seed: u64,
        random_per_s: f64,
    ) -> TacticsCost {
        let mut m = PropnetMachine::from_program(Arc::clone(program));
        let mut rng = SmallRng::seed_from_u64(seed);
        TacticsCost { random_per_s, ..TacticsCost::guided(&mut m, &mut rng, knowledge, budget).0 }
    }

    /// `knowledge`'s guided playouts from the initial state for `budget` (no plain rate yet),
    /// and where the game has one role their mean score and its standard error.
    fn guided(
        m: &mut PropnetMachine,
        rng: &mut SmallRng,
        knowledge: &Knowledge,
        budget: Duration,
    ) -> (TacticsCost, Option<(f64, f64)>) {
        let initial = m.initial_state();
        let started = Instant::now();
        let settings = trial_settings(started + budget);
        let mut look = Lookahead::default();
        let (mut complete, mut scores) = (0u64, Vec::new());
        while complete < MAX_PLAYOUTS && !settings.out_of_time() {
            match playout::guided(m, &mut look, &initial, knowledge, rng, &settings) {
                Ok(Some(outcome)) => {
                    complete += 1;
                    if let [score] = outcome.scores[..] {
                        scores.push(f64::from(score));
                    }
                }
                Ok(None) | Err(_) => break,
            }
        }
        let tactical_per_s = complete as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let (playouts, fired) = look.counts();
        let cost = TacticsCost {
            tactical_per_s,
            random_per_s: 0.0,
            fired: fired as f64 / playouts.max(1) as f64,
            playouts: complete,
            score_gain: None,
        };
        (cost, mean_error(&scores))
    }
}

/// The mean of `scores` and its standard error, where there are at least two.
fn mean_error(scores: &[f64]) -> Option<(f64, f64)> {
    (scores.len() >= 2).then(|| {
        let (mean, sd) = stats::moments(scores.iter().copied());
        (mean, sd / (scores.len() as f64).sqrt())
    })
}

/// A measured playout's settings: untraced, unguided by the search, until `deadline`.
fn trial_settings(deadline: Instant) -> Settings {
    Settings { trace: false, ..Settings::traced(10_000, deadline) }
}

/// Random games sampled for [`MoveVariety`], at most.
const VARIETY_GAMES: usize = 200;

/// How much a move's name says about the state it is played in, from random games: per role,
/// the share of the moves it ever has that are legal where it has a choice. A move average
/// (MAST) pools a move's results over every state it was played in; that speaks of the move
/// where it is legal in few states (a piece's step from one square to another), and where it
/// is legal almost everywhere (a disc dropped into a column) it only steers every playout into
/// the same moves whatever the position, which lost strength on Connect Four (BENCHMARKS.md).
///
/// A move's name must also say what the move does: where a name stands for different actions
/// (a king's step or a pawn's from the same square), its average pools them. Random games show
/// which base propositions each play of a move makes true; a name fixes its effect where some
/// of them, beyond those every move of the role makes true (whose turn it is), are made true
/// every time it is played.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MoveVariety {
    /// Per choice, the share of the chooser's moves (as many as random games showed it) that
    /// were legal, averaged over every choice of every role, 0..=1.
    pub legal_share: f64,
    /// Choices sampled (states where a role had more than one legal move).
    pub choices: u64,
    /// The share of the chosen moves (those played at least twice) whose name fixes an effect
    /// of its own, 0..=1.
    pub fixed_share: f64,
    /// The share of the chosen moves that their role had already played earlier in the same
    /// game, 0..=1: none in a game of marks, where a move is played once and its effect stays.
    pub repeat_share: f64,
}

impl MoveVariety {
    /// The longest a measurement should take.
    pub const TRIAL: Duration = Duration::from_millis(150);

    /// How long a player with `time` before it must be ready measures: a twentieth of it,
    /// [`MoveVariety::TRIAL`] at most.
    pub fn trial(time: Duration) -> Duration {
        MoveVariety::TRIAL.min(time.mul_f64(0.05))
    }

    /// The largest share of a role's moves that may be legal in a typical choice for move
    /// averages to be used. Pieces stepping between squares (Breakthrough: a sixth) are below
    /// it, discs dropped into columns (Connect Four: nearly all) and marks on a small board
    /// (Tic-Tac-Toe: about half) above it.
    pub const MAX_LEGAL_SHARE: f64 = 0.25;

    /// The least share of chosen moves whose names must fix their effect for move averages to
    /// be used. Breakthrough, Knightthrough, Reversi and Alquerque, where the averages won, have
    /// every name fixed; escortLatch, where a king's step and a pawn's share a name and the
    /// averages lost, 24%.
    pub const MIN_FIXED_SHARE: f64 = 0.9;

    /// Whether move averages speak of their moves: a role's moves are legal in few of its
    /// choices, and their names fix their effects. A game whose roles never choose gains
    /// nothing from them.
    pub fn pays(&self) -> bool {
        self.choices > 0 && self.legal_share <= Self::MAX_LEGAL_SHARE && self.fixed_share >= Self::MIN_FIXED_SHARE
    }

    /// The largest share of repeated moves for all-moves-as-first statistics to be kept: in a
    /// game of marks (Tic-Tac-Toe, Hex) a move is made once and its effect
    /// stays, so what it scored when played later in a game says what it is worth now; where
    /// moves come again (a piece stepping back and forth, a disc dropped into a column) the
    /// same move does different things at different times.
    pub const MAX_REPEAT_SHARE: f64 = 0.02;

    /// Whether a move's score over the games that played it later speaks of it now (see
    /// [`MoveVariety::MAX_REPEAT_SHARE`]): its roles choose, rarely repeat a move, and its names
    /// fix their effects.
    pub fn marks(&self) -> bool {
        self.choices > 0 && self.repeat_share <= Self::MAX_REPEAT_SHARE && self.fixed_share >= Self::MIN_FIXED_SHARE
    }

    /// Samples random games of `program` from the initial state for `budget` (or
    /// [`VARIETY_GAMES`] games) on one thread.
    pub fn measure(program: &Arc<Program>, budget: Duration, seed: u64) -> MoveVariety {
        let mut m = PropnetMachine::from_program(Arc::clone(program));
        let mut rng = SmallRng::seed_from_u64(seed);
        let deadline = Instant::now() + budget;
        let roles = m.roles().len();
        let initial = m.initial_state();
        let mut seen: Vec<Vec<u64>> = vec![Vec::new(); roles];
        let (mut legal_sum, mut choices) = (vec![0u64; roles], vec![0u64; roles]);
        let (mut joint, mut chose) = (vec![0u32; roles], vec![false; roles]);
        // Per role, per chosen move: how often it was played and what every play of it made
        // true; and what every chosen play of the role made true.
        let mut effects: Vec<HashMap<u32, (u64, Vec<u64>)>> = vec![HashMap::new(); roles];
        let mut common: Vec<Option<Vec<u64>>> = vec![None; roles];
        // Per role, the moves it chose in the game under way.
        let mut played: Vec<Vec<u64>> = vec![Vec::new(); roles];
        let mut repeats = 0u64;
        'games: for _ in 0..VARIETY_GAMES {
            let mut state = initial.clone();
            played.iter_mut().for_each(Vec::clear);
            for _ in 0..1000 {
                if Instant::now() >= deadline {
                    break 'games;
                }
                if m.is_terminal(&state).unwrap_or(true) {
                    break;
                }
                for r in 0..roles {
                    let Ok(legal) = m.legal_moves(&state, r) else { continue 'games };
                    if legal.is_empty() {
                        continue 'games;
                    }
                    joint[r] = legal[rng.random_range(0..legal.len())];
                    chose[r] = legal.len() > 1;
                    if chose[r] {
                        legal_sum[r] += legal.len() as u64;
                        choices[r] += 1;
                        repeats += u64::from(played[r].bit(joint[r] as usize));
                        bits::insert(&mut played[r], joint[r] as usize);
                        for &mv in &legal {
                            bits::insert(&mut seen[r], mv as usize);
                        }
                    }
                }
                let Ok(next) = m.next_state(&state, &joint) else { continue 'games };
                let made: Vec<u64> = next.words().iter().zip(state.words()).map(|(n, s)| n & !s).collect();
                let keep_made = |kept: &mut Vec<u64>| kept.iter_mut().zip(&made).for_each(|(k, m)| *k &= m);
                for r in (0..roles).filter(|&r| chose[r]) {
                    let (plays, always) = effects[r].entry(joint[r]).or_insert_with(|| (0, made.clone()));
                    *plays += 1;
                    keep_made(always);
                    keep_made(common[r].get_or_insert_with(|| made.clone()));
                }
                state = next;
            }
        }
        let total: u64 = choices.iter().sum();
        let weighted: f64 = (0..roles)
            .filter(|&r| choices[r] > 0)
            .map(|r| {
                let distinct = seen[r].iter().map(|w| w.count_ones()).sum::<u32>().max(1);
                legal_sum[r] as f64 / f64::from(distinct)
            })
            .sum();
        let (mut fixed, mut repeated) = (0u64, 0u64);
        for (moves, every) in effects.iter().zip(&common) {
            for (plays, always) in moves.values().filter(|(plays, _)| *plays >= 2) {
                repeated += plays;
                let own = every.as_ref().is_none_or(|e| always.iter().zip(e).any(|(a, e)| a & !e != 0));
                if own {
                    fixed += plays;
                }
            }
        }
        let fixed_share = if repeated == 0 { 1.0 } else { fixed as f64 / repeated as f64 };
        let share = |n: f64| if total == 0 { 0.0 } else { n / total as f64 };
        MoveVariety { legal_share: share(weighted), choices: total, fixed_share, repeat_share: share(repeats as f64) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(name: &str) -> TacticsCost {
        let net = testkit::bundled(name).1;
        let knowledge = Knowledge::new(&net, GoalLatches::new(&net, &[], None), true);
        TacticsCost::measure(&Arc::new(Program::new(&net)), &knowledge, Duration::from_millis(200), 1)
    }

    #[test]
    fn tactics_fire_in_most_tictactoe_playouts_and_hardly_in_a_puzzle() {
        let tictactoe = cost("tictactoe");
        assert!(tictactoe.playouts > 0 && tictactoe.tactical_per_s > 0.0 && tictactoe.random_per_s > 0.0);
        assert!(tictactoe.fired > 0.5, "{tictactoe:?}");
        // A single-player game whose only end is its step limit: nothing to win at once.
        let puzzle = cost("buttonsandlights");
        assert!(puzzle.fired < 0.2, "{puzzle:?}");
        assert!(!puzzle.pays());
    }

    fn variety(name: &str) -> MoveVariety {
        let net = testkit::bundled(name).1;
        MoveVariety::measure(&Arc::new(Program::new(&net)), Duration::from_secs(5), 1)
    }

    #[test]
    fn move_averages_pay_for_pieces_that_step_and_not_for_discs_dropped_into_columns() {
        let breakthrough = variety("breakthrough");
        assert!(breakthrough.choices > 1000 && breakthrough.legal_share < 0.2, "{breakthrough:?}");
        assert!(breakthrough.pays());
        let connectfour = variety("connectfour");
        assert!(connectfour.legal_share > 0.6, "{connectfour:?}");
        assert!(!connectfour.pays());
        // Tic-tac-toe: x chooses among 9, 7, 5, 3 of its nine marks, o among 8, 6, 4, 2.
        let tictactoe = variety("tictactoe");
        assert!((0.4..0.7).contains(&tictactoe.legal_share), "{tictactoe:?}");
        // A piece's step always puts that side's piece on the square it names.
        assert!(breakthrough.fixed_share > 0.99, "{breakthrough:?}");
    }

    #[test]
    fn a_game_of_marks_repeats_no_move_and_dropped_discs_repeat_most() {
        let tictactoe = variety("tictactoe");
        assert_eq!(tictactoe.repeat_share, 0.0, "{tictactoe:?}");
        assert!(tictactoe.marks());
        // Seven columns, up to 21 discs a side.
        let connectfour = variety("connectfour");
        assert!(connectfour.repeat_share > 0.5, "{connectfour:?}");
        assert!(!connectfour.marks());
    }

    /// A king and a pawn step around a ring of twelve squares under one name, `(move FROM TO)`;
    /// with `named`, the name says which piece steps, `(move PIECE FROM TO)`.
    fn ring(named: bool) -> MoveVariety {
        let piece = if named { "?k " } else { "" };
        let text = format!(
            "(role p) (init (at 1 king)) (init (at 7 pawn)) (init (step 0))
             (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
             (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 1)
             (<= (adjacent ?x ?y) (succ ?x ?y) (distinct ?x 0))
             (<= (adjacent ?x ?y) (succ ?y ?x) (distinct ?y 0))
             (<= (occupied ?x) (true (at ?x ?k)))
             (<= (legal p (move {piece}?x ?y)) (true (at ?x ?k)) (adjacent ?x ?y) (not (occupied ?y)))
             (<= (next (at ?y ?k)) (does p (move {piece}?x ?y)) (true (at ?x ?k)))
             (<= (next (at ?x ?k)) (true (at ?x ?k)) (not (moved ?x)))
             (<= (moved ?x) (does p (move {piece}?x ?y)))
             (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
             (<= terminal (true (step 12)))
             (goal p 100)"
        );
        let net = testkit::compile(&testkit::load("ring", &text));
        MoveVariety::measure(&Arc::new(Program::new(&net)), Duration::from_secs(5), 1)
    }

    #[test]
    fn move_averages_do_not_pool_a_kings_steps_with_a_pawns() {
        let shared = ring(false);
        assert!(shared.choices > 1000 && shared.legal_share <= MoveVariety::MAX_LEGAL_SHARE, "{shared:?}");
        assert!(shared.fixed_share < 0.5, "{shared:?}");
        assert!(!shared.pays());
        let named = ring(true);
        assert!(named.fixed_share > 0.99, "{named:?}");
        assert!(named.pays(), "{named:?}");
    }

    #[test]
    fn tactics_pay_when_they_change_most_playouts_at_an_affordable_cost() {
        let cost = |fired, slowdown| TacticsCost {
            tactical_per_s: 1000.0,
            random_per_s: 1000.0 * slowdown,
            fired,
            playouts: 100,
            score_gain: None,
        };
        assert!(cost(0.9, 40.0).pays());
        assert!(cost(MIN_FIRED, MAX_SLOWDOWN).pays());
        assert!(!cost(0.3, 40.0).pays(), "too few playouts changed");
        assert!(!cost(0.9, 1000.0).pays(), "too slow");
        // A puzzle's tactical playouts that score clearly more pay whatever they cost.
        let puzzle = |fired, gain| TacticsCost { score_gain: Some(gain), ..cost(fired, 1000.0) };
        assert!(puzzle(0.9, MIN_SCORE_GAIN).pays());
        assert!(!puzzle(0.9, 1.0).pays(), "not clearly more");
        assert!(!puzzle(0.3, 50.0).pays(), "too few playouts changed");
    }
}
