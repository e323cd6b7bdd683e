//! Move-average sampling (MAST, CadiaPlayer's simulation control: Finnsson and Björnsson,
//! "Simulation-Based Approach to General Game Playing", AAAI 2008): every move's mean score for
//! the role that played it, over the moves of every iteration, in the tree and in its playout.
//! Playouts then play, with some chance, the legal move with the best mean instead of a random
//! one, so that what a move was worth anywhere in the search steers play everywhere: moves are
//! net inputs, the same move (a piece's step from one cell to another) in every state.

use metagame::playout::MastPolicy;

/// Iterations between two copies of the means handed to playouts: a copy per batch of 64 keeps
/// them fresh at a cost of one pass over the moves.
const REFRESH: u32 = 64;

/// The mean of a move never played: the most, so that a greedy playout tries it and learns it.
const UNSEEN: f32 = 1.0;

/// The running sums behind the means, kept by the tree's thread.
#[derive(Debug)]
pub(super) struct Mast {
    sums: Vec<f64>,
    counts: Vec<f64>,
    greedy: f64,
    copy: Option<MastPolicy>,
    /// Iterations recorded since the last copy.
    since: u32,
}

impl Mast {
    /// No means yet for `moves` move indices; playouts choose greedily with chance `greedy`.
    pub fn new(moves: usize, greedy: f64) -> Mast {
        Mast { sums: vec![0.0; moves], counts: vec![0.0; moves], greedy, copy: None, since: 0 }
    }

    /// Adds `score` (0..=100) to the mean of move `mv`, scored for the role that played it.
    pub fn record(&mut self, mv: u32, score: u8) {
        if let (Some(sum), Some(count)) = (self.sums.get_mut(mv as usize), self.counts.get_mut(mv as usize)) {
            *sum += f64::from(score);
            *count += 1.0;
        }
    }

    /// The mean score (0..=100) of move `mv` so far, if it was played.
    pub fn mean(&self, mv: u32) -> Option<f64> {
        let (&sum, &count) = (self.sums.get(mv as usize)?, self.counts.get(mv as usize)?);
        (count > 1e-9).then(|| sum / count)
    }

    /// Counts one iteration recorded.
    pub fn iteration(&mut self) {
        self.since += 1;
    }

    /// Halves the weight of everything seen so far, so that the means follow the game as it
    /// moves on (called when the root moves) without forgetting it at once.
    pub fn fade(&mut self) {
        self.sums.iter_mut().for_each(|s| *s *= 0.5);
        self.counts.iter_mut().for_each(|c| *c *= 0.5);
    }

    /// The means for the next playouts: a fresh copy every [`REFRESH`] iterations.
    pub fn policy(&mut self) -> MastPolicy {
        match &self.copy {
            Some(copy) if self.since < REFRESH => copy.clone(),
            _ => {
                let values = self.sums.iter().zip(&self.counts).map(|(&s, &c)| mean(s, c)).collect();
                self.since = 0;
                self.copy.insert(MastPolicy { values, greedy: self.greedy }).clone()
            }
        }
    }
}

/// A mean score scaled to 0..=1, [`UNSEEN`] for a move without weight.
fn mean(sum: f64, count: f64) -> f32 {
    if count < 1e-9 {
        UNSEEN
    } else {
        (sum / count / 100.0) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    #[test]
    fn means_follow_the_scores_and_unseen_moves_come_first() {
        let mut mast = Mast::new(3, 1.0);
        mast.record(0, 100);
        mast.record(0, 0);
        mast.record(1, 20);
        let policy = mast.policy();
        assert_eq!(&policy.values[..], &[0.5, 0.2, UNSEEN]);
        let mut rng = SmallRng::seed_from_u64(1);
        assert_eq!(policy.pick(&[0, 1, 2], &mut rng), 2, "the unseen move is tried");
        assert_eq!(policy.pick(&[0, 1], &mut rng), 0, "then the best mean");
    }

    #[test]
    fn the_copy_is_refreshed_only_after_enough_iterations() {
        let mut mast = Mast::new(1, 1.0);
        assert_eq!(mast.policy().values[0], UNSEEN);
        mast.record(0, 40);
        mast.iteration();
        assert_eq!(mast.policy().values[0], UNSEEN, "still the old copy");
        for _ in 0..REFRESH {
            mast.iteration();
        }
        assert_eq!(mast.policy().values[0], 0.4);
        mast.fade();
        mast.record(0, 100);
        (0..REFRESH).for_each(|_| mast.iteration());
        // 20 over 0.5 playouts and 100 over one: 120 / 1.5 = 80.
        assert!((mast.policy().values[0] - 0.8).abs() < 1e-6);
    }

    #[test]
    fn without_the_greedy_chance_every_legal_move_is_played() {
        let mut mast = Mast::new(4, 0.0);
        mast.record(3, 100);
        let policy = mast.policy();
        let mut rng = SmallRng::seed_from_u64(2);
        let seen: std::collections::HashSet<u32> = (0..200).map(|_| policy.pick(&[1, 2, 3], &mut rng)).collect();
        assert_eq!(seen.len(), 3);
    }
}
