//! Exhaustive depth-first solving of single-player games, optionally with dead-state removal
//! (chapter 12): a non-terminal state whose set latches rule out every satisfactory score is
//! dropped without being searched.
//!
//! "Satisfactory" starts at the best goal value the game has. If the search proves nothing
//! reaches it, the bar drops to the next goal value and the search runs again, so the result is
//! the optimal score either way; with dead-state removal the failed passes are usually tiny.

use crate::Stop;
use analysis::{Bar, Factors, GoalLatches};
use machine::{MachineError, StateMachine};
use propnet::{PropnetMachine, PropnetState};
use std::time::Instant;

use crate::{Solution, SolveError, SolveStats};

struct Search<'a> {
    m: &'a mut PropnetMachine,
    goals: Option<&'a GoalLatches>,
    factors: Option<&'a Factors>,
    deadline: Option<Instant>,
    stats: SolveStats,
    /// Scores at or above this end the search; states that cannot reach it are dead.
    threshold: u32,
    best: Option<(u32, Vec<u32>)>,
    path: Vec<u32>,
}

/// Solves the single-player game of `m` from its initial state by searching every line of
/// play: `goals` enables dead-state removal; `factors` collapses the moves of factors nothing
/// that matters reads; `values` are the role's possible goal values; `deadline` bounds the time
/// spent. The score is optimal, the plan not necessarily shortest.
pub fn exhaustive(
    m: &mut PropnetMachine,
    goals: Option<&GoalLatches>,
    factors: Option<&Factors>,
    values: &[u32],
    deadline: Option<Instant>,
) -> Result<Solution, SolveError> {
    if m.roles().len() != 1 {
        return Err(SolveError::NotSinglePlayer(m.roles().len()));
    }
    let mut thresholds: Vec<u32> = values.to_vec();
    thresholds.sort_unstable_by(|a, b| b.cmp(a));
    thresholds.dedup();
    // Without dead-state removal one pass for the best value finds the optimum anyway.
    if goals.is_none() {
        thresholds.truncate(1);
    }
    let initial = m.initial_state();
    let mut s = Search {
        m,
        goals,
        factors,
        deadline,
        stats: SolveStats::default(),
        threshold: 0,
        best: None,
        path: Vec::new(),
    };
    let mut optimal = true;
    for &threshold in &thresholds {
        s.threshold = threshold;
        s.stats.nodes += 1;
        let dead = s.is_dead(&initial)?;
        match if dead { Ok(()) } else { s.dfs(&initial) } {
            Ok(()) => s.stats.passes += 1,
            Err(Stop::Machine(e)) => return Err(e.into()),
            Err(Stop::OutOfTime) => {
                optimal = false;
                break;
            }
        }
        if s.best.as_ref().is_some_and(|(score, _)| *score >= threshold) {
            break;
        }
    }
    let (score, plan) = match s.best {
        Some((score, moves)) => (Some(score), moves.iter().map(|&mv| s.m.format_move(&mv)).collect()),
        None => (None, Vec::new()),
    };
    Ok(Solution { score, plan, optimal, one_factor: false, stats: s.stats })
}

impl Search<'_> {
    fn is_dead(&mut self, state: &PropnetState) -> Result<bool, MachineError> {
        let Some(goals) = self.goals else { return Ok(false) };
        Ok(!self.m.is_terminal(state)? && goals.is_dead(state.words(), 0, Bar::AtLeast(self.threshold)))
    }

    /// Searches below `state` (already counted), stopping once the threshold is reached.
    fn dfs(&mut self, state: &PropnetState) -> Result<(), Stop> {
        if self.m.is_terminal(state)? {
            let score = self.m.played_goal(state, 0)?;
            if self.best.as_ref().is_none_or(|(best, _)| score > *best) {
                self.best = Some((score, self.path.clone()));
            }
            return Ok(());
        }
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(Stop::OutOfTime);
        }
        for mv in crate::legal_moves(self.m, state, self.factors)? {
            let next = self.m.next_state(state, &[mv])?;
            if self.is_dead(&next)? {
                self.stats.pruned += 1;
                continue;
            }
            self.stats.nodes += 1;
            self.path.push(mv);
            let found = self.dfs(&next);
            self.path.pop();
            found?;
            if self.best.as_ref().is_some_and(|(score, _)| *score >= self.threshold) {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corridor() -> (propnet::Net, GoalLatches) {
        let net = testkit::bundled("untwistycorridor").1;
        let mut latches = analysis::structural_latches(&net);
        latches.extend(analysis::exact_latches(&net, 16, &[]));
        let goals = GoalLatches::new(&net, &latches, None);
        (net, goals)
    }

    #[test]
    fn dead_state_removal_finds_the_same_optimum_with_far_fewer_nodes() {
        let (net, goals) = corridor();
        let values: Vec<u32> = net.goals[0].iter().map(|&(v, _)| v).collect();
        let plain = exhaustive(&mut PropnetMachine::new(&net), None, None, &values, None).expect("solves");
        let pruned = exhaustive(&mut PropnetMachine::new(&net), Some(&goals), None, &values, None).expect("solves");
        assert_eq!((plain.score, pruned.score), (Some(100), Some(100)));
        assert_eq!(plain.plan, pruned.plan);
        assert_eq!(pruned.plan, vec!["d"; 7]);
        assert!(plain.optimal && pruned.optimal);
        assert_eq!(plain.stats.nodes, 21_845);
        // The 8 states of the all-d line, plus the three terminal states the last a, b and c
        // reach: their score is read directly (the latch only speaks of later states). The 18
        // other successors of the line are dead and dropped.
        assert_eq!((pruned.stats.nodes, pruned.stats.pruned), (11, 18));
    }
}
