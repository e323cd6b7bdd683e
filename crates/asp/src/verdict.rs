//! The answers to the two-step latch question, whichever solver gives them.

/// What the proof says about one base proposition in one direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// No two-step counterexample exists: a latch.
    Latch,
    /// Some state and legal joint move change it: not a latch.
    NotLatch,
    /// Not answered (yet): the deadline came first.
    Unknown,
}

/// A verdict for every base in both directions, in the order of the bases asked about (e.g.
/// [`Facts::bases`](crate::Facts::bases)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdicts {
    /// Whether each base, once true, stays true.
    pub positive: Vec<Verdict>,
    /// Whether each base, once false, stays false.
    pub negative: Vec<Verdict>,
}

impl Verdicts {
    /// Nothing known yet about `n` bases.
    pub fn unknown(n: usize) -> Verdicts {
        Verdicts { positive: vec![Verdict::Unknown; n], negative: vec![Verdict::Unknown; n] }
    }

    /// The verdict of base `i` as a positive or a negative latch.
    pub fn get_mut(&mut self, positive: bool, i: usize) -> Option<&mut Verdict> {
        if positive {
            self.positive.get_mut(i)
        } else {
            self.negative.get_mut(i)
        }
    }
}
