//! How guided playouts step: one state at a time or 64 candidates a pass, whichever the
//! playouts' own timing finds faster on the game (see [`Pace`]).

use std::time::Duration;

/// Playouts timed at the start of every round of [`RETRIAL`], in pairs of batches: one state at
/// a time, then stepped.
const TRIAL: u64 = 128;

/// Playouts after which the two ways are timed again (the game moves on, and with it the cost of
/// its steps).
const RETRIAL: u64 = 8192;

/// Which way guided playouts step: one state at a time by forward propagation, or 64
/// candidates a pass by a [`Stepper`](propnet::Stepper). The playouts are the same either way;
/// which is faster depends on the game (a pass touches every gate, a propagation only what
/// changed: stepping wins where a state has many candidates and a small net), so unless told it
/// times both on the playouts themselves, batch by batch, and keeps the one faster per joint move
/// in most pairs (a majority, so that a batch the machine happened to slow down does not decide).
#[derive(Debug, Default)]
pub(crate) struct Pace {
    /// The way it was told to take.
    fixed: Option<bool>,
    /// Playouts recorded.
    played: u64,
    /// Batches recorded.
    batches: u64,
    /// Batches recorded in the current trial.
    timed: u64,
    /// Seconds per joint move of the pair's first batch (one state at a time).
    first: f64,
    /// Pairs of this round where stepping was faster, less those where it was slower.
    votes: i64,
    /// The faster way at the last trial.
    stepped: bool,
}

impl Pace {
    /// A pace that always steps one way: stepped or not.
    pub fn fixed(stepped: bool) -> Pace {
        Pace { fixed: Some(stepped), ..Pace::default() }
    }

    /// Whether the next batch is stepped.
    pub fn stepped(&self) -> bool {
        match self.fixed {
            Some(stepped) => stepped,
            None if self.played % RETRIAL < TRIAL => self.timed % 2 == 1,
            None => self.stepped,
        }
    }

    /// Records a batch of `playouts` playouts, `steps` joint moves in all, that took `took`,
    /// stepped or not.
    pub fn record(&mut self, stepped: bool, playouts: u64, steps: u64, took: Duration) {
        if self.fixed.is_some() {
            return;
        }
        let k = self.played % RETRIAL;
        if k < TRIAL {
            if self.timed == 0 {
                self.votes = 0;
            }
            // The very first pair also made the machines: it does not vote.
            if self.batches >= 2 {
                let per_step = took.as_secs_f64() / steps.max(1) as f64;
                match stepped {
                    false => self.first = per_step,
                    true => self.votes += if per_step < self.first { 1 } else { -1 },
                }
            }
            self.timed += 1;
            if k + playouts >= TRIAL {
                self.stepped = self.votes > 0;
                self.timed = 0;
            }
        }
        self.played += playouts;
        self.batches += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays a trial: each pair's stepped playout takes `stepped_ms` and the other `one_ms`
    /// (pair by pair), 10 joint moves each.
    fn trial(pace: &mut Pace, pairs: impl Fn(u64) -> (u64, u64)) {
        for k in 0..TRIAL {
            let stepped = pace.stepped();
            assert_eq!(stepped, k % 2 == 1, "the trial alternates, one state at a time first");
            let (one, by_lanes) = pairs(k / 2);
            let ms = if stepped { by_lanes } else { one };
            pace.record(stepped, 1, 10, Duration::from_millis(ms));
        }
    }

    #[test]
    fn the_way_faster_in_most_pairs_is_kept_until_the_next_trial() {
        let mut pace = Pace::default();
        // Stepping is faster in most pairs, though a few slow ones would tip a total the other way.
        trial(&mut pace, |pair| if pair % 8 == 3 { (1, 400) } else { (5, 4) });
        assert!(pace.stepped());
        for _ in TRIAL..RETRIAL {
            assert!(pace.stepped());
            pace.record(true, 1, 10, Duration::from_millis(1));
        }
        // The next round times both again and changes its mind.
        trial(&mut pace, |_| (3, 4));
        assert!(!pace.stepped());
    }

    #[test]
    fn a_trial_of_batches_takes_as_many_playouts() {
        let mut pace = Pace::default();
        // Batches of 4 playouts: 32 batches, 16 pairs, make the trial; stepping wins them.
        for k in 0..TRIAL / 4 {
            let stepped = pace.stepped();
            assert_eq!(stepped, k % 2 == 1, "batch {k}: the trial alternates");
            pace.record(stepped, 4, 40, Duration::from_millis(if stepped { 1 } else { 3 }));
        }
        for _ in 0..10 {
            assert!(pace.stepped(), "the trial is over and stepping won it");
            pace.record(true, 4, 40, Duration::from_millis(1));
        }
    }

    #[test]
    fn the_first_pair_does_not_vote() {
        let mut pace = Pace::default();
        // The first pair also built the machines: whatever it took, it does not count.
        pace.record(false, 1, 10, Duration::from_millis(900));
        pace.record(true, 1, 10, Duration::from_millis(1));
        assert_eq!(pace.votes, 0);
        pace.record(false, 1, 10, Duration::from_millis(900));
        pace.record(true, 1, 10, Duration::from_millis(1));
        assert_eq!(pace.votes, 1);
    }

    #[test]
    fn a_fixed_pace_never_changes() {
        for way in [false, true] {
            let mut pace = Pace::fixed(way);
            for _ in 0..2 * TRIAL {
                assert_eq!(pace.stepped(), way);
                pace.record(way, 1, 10, Duration::from_millis(if way { 100 } else { 1 }));
            }
        }
    }
}
