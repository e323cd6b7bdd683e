//! Latches proved from the rules with answer-set programming (chapter 16.1): a base is a latch
//! when clingo finds no state and legal joint move that change it the forbidden way.
//!
//! Unlike the exact method this respects legality and sees the whole rule set, not just a cone
//! of bounded size; unlike it, it ranges over every state of the net's base propositions, while
//! the optimised net already knows what reachability fixes. So what the net's reachability
//! analysis proved is passed on, which is sound because it holds in every reachable state: bases
//! that never change are fixed at their value, and moves that are never legal are left out. The
//! base and move names come from the net, not from the game's `base`/`input` declarations,
//! because the net keeps every base that can ever be true and every move that can ever be legal.
//!
//! Most questions have a counterexample, and the solver pays for one answer set per handful of
//! them, so the net first plays random games for a moment: every change seen there is one the
//! solver would find too, and the solver is asked only about the rest.

use crate::latches::{Latch, LatchKind, Method};
use machine::StateMachine;
use propnet::net::{Kind, Net};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The time to give the proof method by default. Every corpus game but two finishes within it
/// (most in under 0.1 s, the slowest, skirmish, in about 1 s), which leaves room for the propnet
/// and the other analyses in a 10 s start clock; amazons (5 s of grounding alone, after a 6 s
/// propnet build; 16 s in all) and kalaha_2009 (6,000 questions, tens of milliseconds of search
/// per answer set; not done in 30 s) do not finish in any budget that fits the start clock.
pub const PROOF_BUDGET: Duration = Duration::from_secs(2);

/// What the proof method found in one game, and what it left open.
#[derive(Debug, Clone, Serialize)]
pub struct ProofLatches {
    /// The latches proved, by base and kind.
    pub latches: Vec<Latch>,
    /// Questions (base, direction) answered with a counterexample.
    pub refuted: usize,
    /// Questions the deadline left open.
    pub unknown: usize,
    /// Time spent in random play.
    pub play: Duration,
    /// Time spent translating and grounding.
    pub ground: Duration,
    /// Time spent solving.
    pub solve: Duration,
    /// Answer sets the solver read.
    pub models: usize,
}

/// Asks clingo, for every base of `net` and both directions, whether it latches under the rules
/// of `desc`; questions still open at `deadline` are counted as unknown.
///
/// Clingo's grounding cannot be interrupted, so the solver runs on a thread of its own: shortly
/// after the deadline ([`CANCEL_GRACE`]) the answer is read if it is there, and otherwise the
/// thread is left to finish its grounding (it then sees the deadline has passed and stops without
/// solving; [`wait_for_abandoned_proofs`] collects it) while every question counts as unknown.
/// The caller gets its answer on time either way.
pub fn proof_latches(
    desc: &gdl::Description,
    net: &Net,
    deadline: Option<Instant>,
) -> Result<ProofLatches, asp::Error> {
    let n = net.bases.len();
    let mut out = ProofLatches {
        latches: Vec::new(),
        refuted: 0,
        unknown: 2 * n,
        play: Duration::ZERO,
        ground: Duration::ZERO,
        solve: Duration::ZERO,
        models: 0,
    };
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(out);
    }
    let facts = facts(net)?;
    let start = Instant::now();
    let budget = deadline.map_or(PLAY_BUDGET, |d| d.saturating_duration_since(start) / 10).min(PLAY_BUDGET);
    let played = random_play(net, start + budget);
    out.play = start.elapsed();
    let Some(report) = prove_in_background(desc.clone(), facts, played, deadline)? else {
        return Ok(out);
    };
    (out.ground, out.solve, out.models, out.unknown) = (report.ground, report.solve, report.models, 0);
    for (i, base) in net.bases.iter().enumerate() {
        for (kind, verdict) in
            [(LatchKind::Positive, report.verdicts.positive[i]), (LatchKind::Negative, report.verdicts.negative[i])]
        {
            match verdict {
                asp::Verdict::Latch => {
                    out.latches.push(Latch { base: i, name: base.name.clone(), kind, method: Method::Proof })
                }
                asp::Verdict::NotLatch => out.refuted += 1,
                asp::Verdict::Unknown => out.unknown += 1,
            }
        }
    }
    Ok(out)
}

/// How long after the deadline a solver thread may still deliver: cancelling a solve call in
/// progress takes a moment, and its partial answers are worth the wait.
pub(crate) const CANCEL_GRACE: Duration = Duration::from_millis(100);

/// Solver threads whose answer came too late, still grounding.
static ABANDONED: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

/// Waits for solver threads left behind at a deadline. A process must call this before it exits:
/// exiting tears down the solver's global state under a thread that still uses it.
pub fn wait_for_abandoned_proofs() {
    let threads = std::mem::take(&mut *ABANDONED.lock().unwrap_or_else(|e| e.into_inner()));
    for t in threads {
        // A thread that panicked has nothing left to clean up.
        let _ = t.join();
    }
}

/// Runs `asp::prove_latches` on a thread of its own and waits for it until `deadline` (and a
/// moment); `None` if it has not answered by then.
fn prove_in_background(
    desc: gdl::Description,
    facts: asp::Facts,
    known: asp::Verdicts,
    deadline: Option<Instant>,
) -> Result<Option<asp::Report>, asp::Error> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("latch proofs".into()).spawn(move || {
        // The receiver is gone if the caller stopped waiting; the answer is then wasted.
        let _ = tx.send(asp::prove_latches(&desc, &facts, known, deadline));
    });
    let thread = spawned.map_err(|e| asp::Error::Clingo(format!("cannot start the solver thread: {e}")))?;
    let answer = match deadline {
        Some(d) => rx.recv_timeout(d.saturating_duration_since(Instant::now()) + CANCEL_GRACE),
        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
    };
    match answer {
        Ok(report) => report.map(Some),
        Err(RecvTimeoutError::Timeout) => {
            ABANDONED.lock().unwrap_or_else(|e| e.into_inner()).push(thread);
            Ok(None)
        }
        Err(RecvTimeoutError::Disconnected) => Err(asp::Error::Clingo("the solver thread failed".into())),
    }
}

/// The generator's domain, read off the optimised net.
fn facts(net: &Net) -> Result<asp::Facts, asp::Error> {
    let roles: Vec<gdl::Sym> = net.roles.iter().map(|r| gdl::Sym::new(r)).collect();
    let bases = net.bases.iter().map(|b| asp::parse_term(&b.name)).collect::<Result<_, _>>()?;
    let mut inputs = Vec::with_capacity(net.moves.len());
    for m in net.moves.iter().filter(|m| net.kinds[m.legal as usize] != Kind::Const(false)) {
        inputs.push((roles[m.role], asp::parse_term(&m.name)?));
    }
    // A base whose next value is the constant it starts with never changes.
    let fixed = net
        .bases
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match net.kinds[b.next as usize] {
            Kind::Const(v) if v == b.init => Some((i, v)),
            _ => None,
        })
        .collect();
    Ok(asp::Facts { roles, bases, inputs, fixed })
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
fn random_play(net: &Net, until: Instant) -> asp::Verdicts {
    let mut seen = asp::Verdicts::unknown(net.bases.len());
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
                if flips != 0 && verdicts[i] == asp::Verdict::Unknown {
                    verdicts[i] = asp::Verdict::NotLatch;
                    news = true;
                }
            }
        }
        quiet = if news { 0 } else { quiet + 1 };
        quiet < PLAY_PATIENCE && Instant::now() < until
    });
    seen
}
