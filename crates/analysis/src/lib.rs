//! Game structure discovered from a game's propnet, as plain data for search and for reports:
//! groups of propositions that hold one at a time (state invariants, proved by induction),
//! latches (chapter 12, found by structural, exact and proof methods), composite latches,
//! inhibitors and goal inhibitors, goal latches with the score range still achievable in a
//! state (Sancho), the dead states that follow from them, the propositions a latch keeps
//! at their value for good, the locality of moves' effects (Sancho's local search), and
//! confirmed forms of the goal calculation (Sancho's goal emulation), and the independent
//! sub-games a game splits into (Sancho's factorisation).

#![warn(missing_docs)]

mod composite;
mod cone;
mod consequences;
mod exclusive;
mod factor;
mod goalform;
mod goals;
mod implication;
mod inhibitors;
mod invariant;
mod kept;
mod latches;
mod locality;
mod run;
mod zerosum;

pub use composite::{composite_latches, CompositeLatch, Junction};
pub use exclusive::{Exclusive, Group};
pub use factor::{Factor, Factors};
pub use goalform::{
    Decider, FormRule, GoalForm, GoalForms, LatchHeuristic, Speed as GoalSpeed, Standing, Tally, TallyKind, Trend,
};
pub use goals::{Bar, Effect, GoalLatch, GoalLatches, ScoreRange};
pub use implication::Implication;
pub use inhibitors::{exact_inhibitors, structural_inhibitors, GoalInhibitor, Inhibitor, When};
pub use kept::{kept_by_latches, Kept};
pub use latches::{exact_latches, structural_latches, Latch, LatchKind, Method};
pub use locality::{
    describe, multi_source, Condition, Conjunction, Disjunct, LocalVerdict, Locality, Outcome, FAR, MAX_DISTANCE,
};
pub use run::{Analysis, AnalysisConfig, Phase};
pub use zerosum::zero_sum;

mod proof;
pub(crate) use proof::{invariants, Candidate, Pair, Step};
pub use proof::{proof_latches, wait_for_abandoned_proofs, ProofError, ProofLatches, Prover, PROOF_BUDGET};

#[cfg(test)]
mod testing {
    use propnet::Net;

    /// The optimised net of a bundled game.
    pub fn net(name: &str) -> Net {
        testkit::bundled(name).1
    }

    /// The optimised net of `rules`.
    pub fn compiled(rules: &str) -> Net {
        let (desc, _) = gdl::load("t.kif", rules).expect("valid rules");
        propnet::compile(&desc, &propnet::Limits::default()).expect("a net")
    }

    /// Turns pass between `a` and `b`, exactly one holding at a time, and `d` stays true as
    /// long as they are not both true: a positive latch in every reachable state, though not
    /// over every marking of the bases.
    pub const TAKING_TURNS: &str = "(role r) (init (turn a)) (init d) (<= (legal r go))
        (<= (next (turn b)) (true (turn a))) (<= (next (turn a)) (true (turn b)))
        (<= both (true (turn a)) (true (turn b)))
        (<= (next d) (true d) (not both)) (<= terminal (not (true d))) (<= (goal r 100) (true d))";

    /// The index of the base proposition called `name`.
    pub fn base(net: &Net, name: &str) -> usize {
        net.bases.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("no base {name}"))
    }
}
