//! Latches proved by the two-step question of chapter 16.1: a base is a latch when no state and
//! legal joint move change it the forbidden way.
//!
//! Unlike the exact method this respects legality and sees the whole of the rules, not just a
//! cone of bounded size; unlike it, it ranges over every state of the net's base propositions,
//! while the optimised net already knows what reachability fixes. So what the net's reachability
//! analysis proved is passed on, which is sound because it holds in every reachable state: bases
//! that never change are fixed at their value, and moves that are never legal are left out. The
//! base and move names come from the net, not from the game's `base`/`input` declarations,
//! because the net keeps every base that can ever be true and every move that can ever be legal.
//!
//! Two provers answer the same question: [`Prover::Sat`] (always built) encodes the optimised net
//! as clauses for a SAT solver ([`sat`]); [`Prover::Clingo`] (the `clingo` feature) translates the
//! rules to an answer-set program as the chapter does. Most questions have a counterexample, and
//! either solver pays for one model per handful of them, so the net first plays random games for a
//! moment: every change seen there is one the solver would find too, and the solver is asked only
//! about the rest.

use crate::latches::{Latch, LatchKind, Method};
use crate::Group;
use asp::{Verdict, Verdicts};
use machine::StateMachine;
use propnet::net::{Kind, Net};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::time::{Duration, Instant};

#[cfg(feature = "clingo")]
mod clingo;
mod sat;
pub(crate) use sat::{Candidate, Pair, Step};

#[cfg(feature = "clingo")]
pub use clingo::wait_for_abandoned_proofs;

/// Waits for solver threads left behind at a deadline; only the answer-set solver (the `clingo`
/// feature) leaves any, so without it there is nothing to wait for.
#[cfg(not(feature = "clingo"))]
pub fn wait_for_abandoned_proofs() {}

/// The time to give the proof method by default: room for the propnet and the other analyses in
/// a 10 s start clock. BENCHMARKS.md has what each prover needs per corpus game.
pub const PROOF_BUDGET: Duration = Duration::from_secs(2);

/// Which solver answers the two-step question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Prover {
    /// The optimised net as clauses for batsat (always available).
    #[default]
    Sat,
    /// The rules as an answer-set program for clingo (the `clingo` feature).
    Clingo,
}

impl Prover {
    /// The prover's name, as reports and the command line give it.
    pub fn name(self) -> &'static str {
        match self {
            Prover::Sat => "sat",
            Prover::Clingo => "clingo",
        }
    }

    /// Whether this build has the prover.
    pub fn available(self) -> bool {
        match self {
            Prover::Sat => true,
            Prover::Clingo => cfg!(feature = "clingo"),
        }
    }
}

/// Why the proof could not be attempted.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProofError {
    /// The answer-set solver failed or refused the program.
    #[error(transparent)]
    Asp(#[from] asp::Error),
    /// The prover asked for is not in this build.
    #[error("this build has no {0:?} prover (build with the `clingo` feature)")]
    Unavailable(Prover),
}

/// What the proof method found in one game, and what it left open.
#[derive(Debug, Clone, Serialize)]
pub struct ProofLatches {
    /// The solver that answered.
    pub prover: Prover,
    /// The latches proved, by base and kind.
    pub latches: Vec<Latch>,
    /// Questions (base, direction) answered with a counterexample.
    pub refuted: usize,
    /// Questions the deadline left open.
    pub unknown: usize,
    /// Time spent in random play.
    pub play: Duration,
    /// Time spent setting the problem up: writing the clauses, or translating and grounding.
    pub ground: Duration,
    /// Time spent solving.
    pub solve: Duration,
    /// Models (answer sets) the solver read.
    pub models: usize,
    /// Whether the set-up finished before the deadline (clingo's grounding cannot be stopped).
    pub set_up: bool,
}

/// Asks `prover`, for every base of `net` and both directions, whether it latches under the
/// rules of `desc`, from the states that satisfy the proved `groups`; questions still open at
/// `deadline` are counted as unknown.
pub fn proof_latches(
    desc: &gdl::Description,
    net: &Net,
    prover: Prover,
    groups: &[Group],
    deadline: Option<Instant>,
) -> Result<ProofLatches, ProofError> {
    if !prover.available() {
        return Err(ProofError::Unavailable(prover));
    }
    let n = net.bases.len();
    let mut out = ProofLatches {
        prover,
        latches: Vec::new(),
        refuted: 0,
        unknown: 2 * n,
        play: Duration::ZERO,
        ground: Duration::ZERO,
        solve: Duration::ZERO,
        models: 0,
        set_up: false,
    };
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(out);
    }
    let start = Instant::now();
    let budget = deadline.map_or(PLAY_BUDGET, |d| d.saturating_duration_since(start) / 10).min(PLAY_BUDGET);
    let mut verdicts = random_play(net, start + budget);
    out.play = start.elapsed();
    let fixed = fixed_bases(net);
    match prover {
        Prover::Sat => {
            let effort = sat::prove(net, &fixed, groups, &mut verdicts, deadline);
            (out.ground, out.solve, out.models, out.set_up) = (effort.encode, effort.solve, effort.models, true);
        }
        #[cfg(feature = "clingo")]
        Prover::Clingo => {
            let Some(report) = clingo::prove(desc, net, fixed, groups, verdicts.clone(), deadline)? else {
                return Ok(out);
            };
            (out.ground, out.solve, out.models, out.set_up) = (report.ground, report.solve, report.models, true);
            verdicts = report.verdicts;
        }
        #[cfg(not(feature = "clingo"))]
        Prover::Clingo => {
            // Only the answer-set translation reads the rules.
            let _ = desc;
            unreachable!("an unavailable prover is refused above")
        }
    }
    out.unknown = 0;
    for (i, base) in net.bases.iter().enumerate() {
        for (kind, verdict) in
            [(LatchKind::Positive, verdicts.positive[i]), (LatchKind::Negative, verdicts.negative[i])]
        {
            match verdict {
                Verdict::Latch => {
                    out.latches.push(Latch { base: i, name: base.name.clone(), kind, method: Method::Proof })
                }
                Verdict::NotLatch => out.refuted += 1,
                Verdict::Unknown => out.unknown += 1,
            }
        }
    }
    Ok(out)
}

/// Which of `candidates` hold in every reachable state, by induction: true initially, and kept by
/// every legal step from a state where all the survivors hold; and which of `steps` hold of
/// every legal step from a reachable state (see
/// [`sat::invariants`], which says what `give_up` does), every state also satisfying the
/// groups already proved in `within`. Past `deadline` none is proved.
pub(crate) fn invariants(
    net: &Net,
    candidates: &[Candidate],
    steps: &[Step],
    within: &[Group],
    give_up: bool,
    deadline: Option<Instant>,
) -> (Vec<bool>, Vec<bool>) {
    let initially: Vec<Candidate> = candidates.iter().filter(|c| c.holds(|b| net.bases[b].init)).cloned().collect();
    let (verdicts, stepped) = sat::invariants(net, &fixed_bases(net), within, &initially, steps, give_up, deadline);
    let mut proved: Vec<&Candidate> = initially.iter().zip(verdicts).filter(|(_, p)| *p).map(|(c, _)| c).collect();
    proved.sort_unstable();
    (candidates.iter().map(|c| proved.binary_search(&c).is_ok()).collect(), stepped)
}

/// The bases whose next value is the constant they start with: they never change.
fn fixed_bases(net: &Net) -> Vec<(usize, bool)> {
    net.bases
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match net.kinds[b.next as usize] {
            Kind::Const(v) if v == b.init => Some((i, v)),
            _ => None,
        })
        .collect()
}

/// The most time random play may take; a tenth of the time left when that is less.
const PLAY_BUDGET: Duration = Duration::from_millis(200);
/// Play stops early after this many steps (up to 64 transitions each) in a row showed no new change.
const PLAY_PATIENCE: u32 = 50;
/// A trajectory restarts from the initial state after this many moves, for games that can run
/// for ever.
const PLAY_DEPTH: u32 = 500;

/// Changes seen in random play from the initial state, as verdicts: every base seen to go from
/// true to false (false to true) is no positive (negative) latch, the rest unknown. The solver
/// would find each of these transitions too, since a reachable state with legal moves is one of
/// the generator's, but it pays a whole answer set for the few changes one transition shows; the
/// propnet's bit-sliced playouts show 64 transitions at once for the price of two evaluations.
fn random_play(net: &Net, until: Instant) -> Verdicts {
    let mut seen = Verdicts::unknown(net.bases.len());
    let mut m = PropnetMachine::new(net);
    let initial = m.initial_state();
    let mut rng = SmallRng::seed_from_u64(0x5eed_1a7c_4e55_0001);
    let mut quiet = 0;
    m.watch_transitions(&initial, u64::MAX, &mut rng, PLAY_DEPTH, &mut |step| {
        let mut news = false;
        for (i, (&now, &next)) in step.now.iter().zip(step.next).enumerate() {
            for (verdicts, flips) in
                [(&mut seen.positive, now & !next & step.moving), (&mut seen.negative, !now & next & step.moving)]
            {
                if flips != 0 && verdicts[i] == Verdict::Unknown {
                    verdicts[i] = Verdict::NotLatch;
                    news = true;
                }
            }
        }
        quiet = if news { 0 } else { quiet + 1 };
        quiet < PLAY_PATIENCE && Instant::now() < until
    });
    seen
}
