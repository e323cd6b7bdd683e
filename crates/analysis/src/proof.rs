//! Latches proved from the rules with answer-set programming (chapter 16.1): a base is a latch
//! when clingo finds no state and legal joint move that change it the forbidden way.
//!
//! Unlike the exact method it respects legality and sees the whole rule set, not just a cone of
//! bounded size; unlike it, it ranges over every state of the net's base propositions, whereas the
//! optimised net already knows what reachability fixes. So what the net's reachability analysis
//! proved constant is passed on: bases fixed in every reachable state, and moves never legal.
//! The base and move names come from the net, not from the game's `base`/`input` declarations,
//! because the net keeps every base that can ever be true and every move that can ever be legal.

use crate::latches::{Latch, LatchKind, Method};
use propnet::net::{Kind, Net, NodeId};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What the proof method found in one game, and what it left open.
#[derive(Debug, Clone, Serialize)]
pub struct ProofLatches {
    /// The latches proved, by base and kind.
    pub latches: Vec<Latch>,
    /// Questions (base, direction) answered with a counterexample.
    pub refuted: usize,
    /// Questions the deadline left open.
    pub unknown: usize,
    /// Time spent translating and grounding.
    pub ground: Duration,
    /// Time spent solving.
    pub solve: Duration,
    /// Solver calls made.
    pub solves: usize,
}

/// Asks clingo, for every base of `net` and both directions, whether it latches under the rules
/// of `desc`; questions still open at `deadline` are counted as unknown. Grounding happens before
/// the first deadline check and cannot be interrupted.
pub fn proof_latches(
    desc: &gdl::Description,
    net: &Net,
    deadline: Option<Instant>,
) -> Result<ProofLatches, asp::Error> {
    let facts = facts(net)?;
    let budget = deadline.map_or(PLAY_BUDGET, |d| d.saturating_duration_since(Instant::now()) / 10).min(PLAY_BUDGET);
    let played = random_play(net, Instant::now() + budget);
    let report = asp::prove_latches(desc, &facts, played, deadline)?;
    let mut out = ProofLatches {
        latches: Vec::new(),
        refuted: 0,
        unknown: 0,
        ground: report.ground,
        solve: report.solve,
        solves: report.solves,
    };
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

/// The generator's domain, read off the optimised net.
fn facts(net: &Net) -> Result<asp::Facts, asp::Error> {
    let roles: Vec<gdl::Sym> = net.roles.iter().map(|r| gdl::Sym::new(r)).collect();
    let bases = net.bases.iter().map(|b| asp::parse_term(&b.name)).collect::<Result<_, _>>()?;
    let mut inputs = Vec::with_capacity(net.moves.len());
    for m in &net.moves {
        // Reachability folded this move's legality to false: no reachable state allows it.
        if net.kinds[m.legal as usize] != Kind::Const(false) {
            inputs.push((roles[m.role], asp::parse_term(&m.name)?));
        }
    }
    // A base whose next value reachability folded to the constant it starts with never changes;
    // the net's readers see that constant, and so must the proof.
    let fixed = net
        .bases
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match net.kinds[b.next as usize] {
            Kind::Const(v) if v == b.init => Some((i, v)),
            _ => None,
        })
        .collect();
    if std::env::var_os("ASP_NOREACH").is_some() {
        return Ok(asp::Facts {
            roles,
            bases,
            inputs: net
                .moves
                .iter()
                .map(|m| (gdl::Sym::new(&net.roles[m.role]), asp::parse_term(&m.name).unwrap()))
                .collect(),
            fixed: vec![],
        });
    }
    Ok(asp::Facts { roles, bases, inputs, fixed })
}

/// The most time random play may take; a tenth of the time left when that is less.
const PLAY_BUDGET: Duration = Duration::from_millis(200);
/// Play stops early after this many rounds (64 transitions each) in a row showed no new change.
const PLAY_PATIENCE: u32 = 50;
/// A trajectory restarts from the initial state after this many moves, for games that can run
/// for ever.
const PLAY_DEPTH: u32 = 500;

/// Changes seen in random play from the initial state, as verdicts: every base seen to go from
/// true to false (false to true) is no positive (negative) latch, the rest unknown. The solver
/// would find each of these transitions too, since a reachable state with legal moves is one of
/// the generator's, but it pays a whole solve for the few changes one transition shows; the net
/// plays 64 trajectories at once, one per bit of a word, for the price of two evaluations.
fn random_play(net: &Net, until: Instant) -> asp::Verdicts {
    let mut seen = asp::Verdicts::unknown(net.bases.len());
    let schedule = net.schedule();
    // Only what legality, termination and the next state need, split into what the moves
    // do not affect (evaluated first, with no move made) and what they do.
    let mut needed = vec![false; net.kinds.len()];
    let mut stack: Vec<NodeId> = net.bases.iter().map(|b| b.next).chain(net.moves.iter().map(|m| m.legal)).collect();
    stack.push(net.terminal);
    while let Some(n) = stack.pop() {
        if !std::mem::replace(&mut needed[n as usize], true) {
            stack.extend(net.inputs[n as usize].iter().copied());
        }
    }
    let mut moved = vec![false; net.kinds.len()];
    let (mut before, mut after): (Vec<&[NodeId]>, Vec<&[NodeId]>) = (Vec::new(), Vec::new());
    for comp in schedule.iter().filter(|c| needed[c[0] as usize]) {
        let reads_move = comp.iter().any(|&n| {
            matches!(net.kinds[n as usize], Kind::Input(_)) || net.inputs[n as usize].iter().any(|&m| moved[m as usize])
        });
        comp.iter().for_each(|&n| moved[n as usize] = reads_move);
        if reads_move {
            after.push(comp)
        } else {
            before.push(comp)
        }
    }
    let mut role_moves = vec![Vec::new(); net.roles.len()];
    for (j, m) in net.moves.iter().enumerate() {
        role_moves[m.role].push(j);
    }
    let init: Vec<u64> = net.bases.iter().map(|b| if b.init { u64::MAX } else { 0 }).collect();
    let mut base = init.clone();
    let mut input = vec![0u64; net.moves.len()];
    let mut value = vec![0u64; net.kinds.len()];
    let mut depth = [0u32; 64];
    let mut rng = Rng(0x5eed_1a7c_4e55_0001);
    let mut quiet = 0;
    while quiet < PLAY_PATIENCE && Instant::now() < until {
        input.fill(0);
        net.evaluate_words(&before, &base, &input, &mut value);
        // Lanes still playing: not terminal, every role with a legal move, not too deep.
        let mut live = !value[net.terminal as usize];
        for (lane, d) in depth.iter().enumerate() {
            if *d >= PLAY_DEPTH {
                live &= !(1 << lane);
            }
        }
        let mut picks = [0usize; 64];
        for moves in &role_moves {
            let mut count = [0u32; 64];
            for &j in moves {
                let mut legal = value[net.moves[j].legal as usize] & live;
                while legal != 0 {
                    let lane = legal.trailing_zeros() as usize;
                    legal &= legal - 1;
                    count[lane] += 1;
                    // Reservoir sampling: the k-th legal move replaces the pick with chance 1/k.
                    if rng.below(count[lane]) == 0 {
                        picks[lane] = j;
                    }
                }
            }
            for (lane, &c) in count.iter().enumerate() {
                if c == 0 {
                    live &= !(1 << lane);
                } else if live >> lane & 1 == 1 {
                    input[picks[lane]] |= 1 << lane;
                }
            }
        }
        net.evaluate_words(&after, &base, &input, &mut value);
        let mut news = false;
        for (i, b) in net.bases.iter().enumerate() {
            let (now, next) = (base[i], value[b.next as usize]);
            for (verdicts, flips) in
                [(&mut seen.positive, now & !next & live), (&mut seen.negative, !now & next & live)]
            {
                if flips != 0 && verdicts[i] == asp::Verdict::Unknown {
                    verdicts[i] = asp::Verdict::NotLatch;
                    news = true;
                }
            }
            base[i] = (next & live) | (init[i] & !live);
        }
        for (lane, d) in depth.iter_mut().enumerate() {
            *d = if live >> lane & 1 == 1 { *d + 1 } else { 0 };
        }
        quiet = if news { 0 } else { quiet + 1 };
    }
    if std::env::var_os("ASP_DEBUG").is_some() {
        let n = seen.positive.iter().chain(&seen.negative).filter(|v| **v == asp::Verdict::NotLatch).count();
        eprintln!("play: {n} refuted, quiet {quiet}, {:?} left", until.checked_duration_since(Instant::now()));
    }
    seen
}

/// A small deterministic generator (SplitMix64), so that play needs no dependency and every run
/// plays the same games.
struct Rng(u64);

impl Rng {
    /// A number below `n` (n > 0), by the multiply-shift method.
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((u64::from(n) * (z >> 32)) >> 32) as u32
    }
}
