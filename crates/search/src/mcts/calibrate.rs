//! What the playouts' tactics cost and bring in a game, measured from its initial state at the
//! start of a match, so that the player turns them off where they do not pay.

use super::playout::{self, Guide, Lookahead, Settings};
use analysis::GoalLatches;
use machine::StateMachine;
use propnet::{Net, Program, PropnetMachine};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Playouts of each kind measured, at most (a slow game stops at its time budget first).
const MAX_PLAYOUTS: u64 = 4096;

/// The least share of playouts the tactics must change to be used.
const MIN_FIRED: f64 = 0.5;

/// The most times slower than plain ones tactical playouts may be.
const MAX_SLOWDOWN: f64 = 256.0;

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
}

impl TacticsCost {
    /// The longest a measurement should take (half with tactics, half without): a slow game
    /// measures few playouts, but they are what it will play.
    pub const TRIAL: Duration = Duration::from_millis(1000);

    /// Whether the tactics are worth their cost: they change enough playouts, and playouts with
    /// them are not so slow that the tree starves.
    pub fn pays(&self) -> bool {
        self.fired >= MIN_FIRED && self.tactical_per_s * MAX_SLOWDOWN >= self.random_per_s
    }

    /// The guide for playouts of `net` (compiled as `program`) with the goal latches `goals`:
    /// with the tactics if measuring them for `budget` shows that they pay, else without; and
    /// the measurement. The one way the player and `latchkey analyze` decide.
    pub fn choose(net: &Net, program: &Arc<Program>, goals: GoalLatches, budget: Duration) -> (Guide, TacticsCost) {
        let tactical = Guide::new(net, goals.clone(), true);
        let cost = TacticsCost::measure(program, &tactical, budget, 0);
        let guide = if cost.pays() { tactical } else { Guide::new(net, goals, false) };
        (guide, cost)
    }

    /// Plays tactical playouts with `guide` (which must have tactics) for half of `budget`,
    /// then plain ones for the other half, on one thread.
    pub fn measure(program: &Arc<Program>, guide: &Guide, budget: Duration, seed: u64) -> TacticsCost {
        let mut m = PropnetMachine::from_program(Arc::clone(program));
        let mut rng = SmallRng::seed_from_u64(seed);
        let initial = m.initial_state();
        let half = budget / 2;
        let started = Instant::now();
        let settings = Settings { max_steps: 10_000, trace: false, guide: None, deadline: Some(started + half) };
        let mut look = Lookahead::default();
        let mut complete = 0u64;
        while complete < MAX_PLAYOUTS && !settings.out_of_time() {
            match playout::guided(&mut m, &mut look, &initial, guide, &mut rng, &settings) {
                Ok(Some(_)) => complete += 1,
                Ok(None) | Err(_) => break,
            }
        }
        let tactical_per_s = complete as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let (playouts, fired) = look.counts();
        let started = Instant::now();
        let settings = Settings { deadline: Some(started + half), ..settings };
        let starts = vec![initial; 64];
        let mut random = 0u64;
        while random < MAX_PLAYOUTS * 16 && !settings.out_of_time() {
            random += playout::bit_sliced(&mut m, &starts, &mut rng, &settings).iter().flatten().count() as u64;
        }
        let random_per_s = random as f64 / started.elapsed().as_secs_f64().max(1e-9);
        TacticsCost { tactical_per_s, random_per_s, fired: fired as f64 / playouts.max(1) as f64, playouts: complete }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(name: &str) -> TacticsCost {
        let net = testkit::bundled(name).1;
        let guide = Guide::new(&net, GoalLatches::new(&net, &[]), true);
        TacticsCost::measure(&Arc::new(Program::new(&net)), &guide, Duration::from_millis(200), 1)
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

    #[test]
    fn tactics_pay_when_they_change_most_playouts_at_an_affordable_cost() {
        let cost = |fired, slowdown| TacticsCost {
            tactical_per_s: 1000.0,
            random_per_s: 1000.0 * slowdown,
            fired,
            playouts: 100,
        };
        assert!(cost(0.9, 40.0).pays());
        assert!(cost(MIN_FIRED, MAX_SLOWDOWN).pays());
        assert!(!cost(0.3, 40.0).pays(), "too few playouts changed");
        assert!(!cost(0.9, 1000.0).pays(), "too slow");
    }
}
