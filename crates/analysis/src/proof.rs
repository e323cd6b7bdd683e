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
use propnet::net::{Kind, Net, NodeId};
use serde::Serialize;
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
/// of `desc`; questions still open at `deadline` are counted as unknown. Nothing starts once the
/// deadline has passed, but grounding, once started, cannot be interrupted.
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
    let report = asp::prove_latches(desc, &facts, played, deadline)?;
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
/// Play stops early after this many rounds (64 transitions each) in a row showed no new change.
const PLAY_PATIENCE: u32 = 50;
/// A trajectory restarts from the initial state after this many moves, for games that can run
/// for ever.
const PLAY_DEPTH: u32 = 500;

/// Changes seen in random play from the initial state, as verdicts: every base seen to go from
/// true to false (false to true) is no positive (negative) latch, the rest unknown. The solver
/// would find each of these transitions too, since a reachable state with legal moves is one of
/// the generator's, but it pays a whole answer set for the few changes one transition shows; the
/// net plays 64 trajectories at once, one per bit of a word, for the price of two evaluations.
fn random_play(net: &Net, until: Instant) -> asp::Verdicts {
    let mut seen = asp::Verdicts::unknown(net.bases.len());
    let flat = Flat::new(net);
    let mut role_moves = vec![Vec::new(); net.roles.len()];
    for (j, m) in net.moves.iter().enumerate() {
        role_moves[m.role].push((j, flat.pos[m.legal as usize] as usize));
    }
    let next: Vec<usize> = net.bases.iter().map(|b| flat.pos[b.next as usize] as usize).collect();
    let terminal = flat.pos[net.terminal as usize] as usize;
    let init: Vec<u64> = net.bases.iter().map(|b| if b.init { u64::MAX } else { 0 }).collect();
    let mut base = init.clone();
    let mut input = vec![0u64; net.moves.len()];
    let mut value = vec![0u64; flat.kind.len()];
    let mut depth = [0u32; 64];
    let mut rng = Rng(0x5eed_1a7c_4e55_0001);
    let mut quiet = 0;
    while quiet < PLAY_PATIENCE && Instant::now() < until {
        input.fill(0);
        flat.run(&flat.comps[..flat.split], &base, &input, &mut value);
        // Lanes still playing: not terminal, every role with a legal move, not too deep.
        let mut live = !value[terminal];
        for (lane, d) in depth.iter().enumerate() {
            if *d >= PLAY_DEPTH {
                live &= !(1 << lane);
            }
        }
        let mut picks = [0usize; 64];
        for moves in &role_moves {
            let mut count = [0u32; 64];
            for &(j, legal) in moves {
                let mut legal = value[legal] & live;
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
        flat.run(&flat.comps[flat.split..], &base, &input, &mut value);
        let mut news = false;
        for (i, &n) in next.iter().enumerate() {
            let (now, next) = (base[i], value[n]);
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
    seen
}

/// What play evaluates, copied into flat arrays in evaluation order: legality, termination and
/// the next state. The net keeps each node's inputs in a vector of its own, which a long-running
/// process scatters over its heap; evaluating those was five times slower late in the corpus
/// test than in a fresh process, while flat arrays are read in order wherever they live.
/// [`Net::evaluate_words`] stays the reference for what a node computes; this is the same
/// evaluation, cycles iterated from false to their least fixpoint.
struct Flat {
    /// Each node's position here (`u32::MAX` if play does not need it).
    pos: Vec<u32>,
    /// Per position, what it computes, and its inputs as positions, `inputs[start[k]..start[k + 1]]`.
    kind: Vec<Kind>,
    start: Vec<u32>,
    inputs: Vec<u32>,
    /// Components as position ranges, with whether each is a cycle: those the moves do not
    /// affect first (`..split`), evaluated before moves are chosen, then the others.
    comps: Vec<(usize, usize, bool)>,
    split: usize,
}

impl Flat {
    fn new(net: &Net) -> Flat {
        let mut needed = vec![false; net.kinds.len()];
        let mut stack: Vec<NodeId> =
            net.bases.iter().map(|b| b.next).chain(net.moves.iter().map(|m| m.legal)).collect();
        stack.push(net.terminal);
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut needed[n as usize], true) {
                stack.extend(net.inputs[n as usize].iter().copied());
            }
        }
        let schedule = net.schedule();
        let mut moved = vec![false; net.kinds.len()];
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for comp in schedule.iter().filter(|c| needed[c[0] as usize]) {
            let reads_move = comp.iter().any(|&n| {
                matches!(net.kinds[n as usize], Kind::Input(_))
                    || net.inputs[n as usize].iter().any(|&m| moved[m as usize])
            });
            comp.iter().for_each(|&n| moved[n as usize] = reads_move);
            if reads_move {
                after.push(comp.as_slice());
            } else {
                before.push(comp.as_slice());
            }
        }
        let split = before.len();
        let order: Vec<&[NodeId]> = before.into_iter().chain(after).collect();
        let mut pos = vec![u32::MAX; net.kinds.len()];
        for (k, &n) in order.iter().flat_map(|c| c.iter()).enumerate() {
            pos[n as usize] = k as u32;
        }
        let mut flat = Flat { pos, kind: Vec::new(), start: vec![0], inputs: Vec::new(), comps: Vec::new(), split };
        for comp in order {
            let first = flat.kind.len();
            for &n in comp {
                flat.kind.push(net.kinds[n as usize]);
                flat.inputs.extend(net.inputs[n as usize].iter().map(|&m| flat.pos[m as usize]));
                flat.start.push(flat.inputs.len() as u32);
            }
            let cyclic = comp.len() > 1 || net.inputs[comp[0] as usize].contains(&comp[0]);
            flat.comps.push((first, flat.kind.len(), cyclic));
        }
        flat
    }

    /// Evaluates `comps` for 64 markings at once, marking `k` in bit `k` of every word.
    fn run(&self, comps: &[(usize, usize, bool)], base: &[u64], input: &[u64], value: &mut [u64]) {
        for &(first, end, cyclic) in comps {
            if cyclic {
                value[first..end].fill(0);
            }
            loop {
                let mut changed = false;
                for k in first..end {
                    let ins = &self.inputs[self.start[k] as usize..self.start[k + 1] as usize];
                    let v = match self.kind[k] {
                        Kind::Const(c) => 0u64.wrapping_sub(u64::from(c)),
                        Kind::Base(i) => base[i as usize],
                        Kind::Input(j) => input[j as usize],
                        Kind::And => ins.iter().fold(u64::MAX, |acc, &i| acc & value[i as usize]),
                        Kind::Or => ins.iter().fold(0, |acc, &i| acc | value[i as usize]),
                        Kind::Not => !value[ins[0] as usize],
                    };
                    changed |= v != value[k];
                    value[k] = v;
                }
                if !cyclic || !changed {
                    break;
                }
            }
        }
    }
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
