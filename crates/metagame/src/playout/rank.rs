//! How a guided playout ranks a role's moves: by what one move ahead does to its achievable
//! score range at the goal latches, by the end where a move ends the game, and by the material a
//! move gains (see [`Scratch::rank_moves`]).

use super::score;
use crate::knowledge::{Captures, Knowledge};
use crate::playout::Best;
use analysis::ScoreRange;
use machine::{MachineError, StateMachine};
use propnet::{PropnetMachine, PropnetState, Stepper};
use rand::rngs::SmallRng;
use structures::Bits;

/// A playout's group of the stepper's lanes: `width` lanes from lane `first`.
pub(super) struct Group<'a> {
    pub(super) st: &'a mut Stepper,
    pub(super) width: usize,
    pub(super) first: usize,
}

impl Group<'_> {
    /// The lanes (of the group, lane 0 its first) whose state is terminal.
    #[inline]
    pub(super) fn terminal(&self) -> u64 {
        self.st.terminal() >> self.first
    }

    /// The lanes (of the group) where base `i` is true.
    #[inline]
    pub(super) fn base(&self, i: usize) -> u64 {
        self.st.base(i) >> self.first
    }

    /// Role `role`'s score in the group's lane `lane`, the goals evaluated if they are not.
    pub(super) fn score(&mut self, lane: usize, role: usize) -> u32 {
        self.st.refresh_goals();
        self.st.score(self.first + lane, role)
    }
}

/// The buffers a guided playout reuses from step to step.
#[derive(Debug)]
pub(super) struct Scratch {
    /// The watched bases' next values, candidate by candidate.
    bits: Vec<u64>,
    /// Indices of the candidates ranked, into a role's legal moves.
    candidates: Vec<usize>,
    /// The candidates' moves.
    chosen: Vec<u32>,
    /// Per legal move, its tier.
    pub(super) tiers: Vec<i8>,
    /// Per candidate, the material the mover would lead by after it.
    leads: Vec<i64>,
    /// A candidate's next state as far as the ranking reads it: the watched bases, all set for
    /// every candidate ranked, so the other bits need not follow the playout.
    after: PropnetState,
}

impl Scratch {
    pub(super) fn new(start: &PropnetState) -> Scratch {
        Scratch {
            bits: Vec::new(),
            candidates: Vec::new(),
            chosen: Vec::new(),
            tiers: Vec::new(),
            leads: Vec::new(),
            after: start.clone(),
        }
    }

    /// Ranks role `r`'s legal moves `l` in `state`, the others playing `joint`, into `tiers`,
    /// and returns the best tier. Without tactics the judge (`judge`, over the end) ranks every
    /// candidate, latches included, in one pass; with them the goal latches rank every
    /// candidate (looked at with `look`) by the latch bases alone, and the end is judged only
    /// for candidates that have ended a game before (`ending`). Where `lanes` hold every move
    /// of `l` expanded (lane k: `l[k]`), they answer in place of `look` and `judge`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn rank_moves(
        &mut self,
        look: &mut PropnetMachine,
        judge: Option<&mut PropnetMachine>,
        lanes: Option<&mut Group>,
        knowledge: &Knowledge,
        ending: &[u64],
        state: &PropnetState,
        joint: &[u32],
        r: usize,
        l: &[u32],
    ) -> Result<i8, MachineError> {
        let goals = &knowledge.goals;
        let now = goals.range(state.words(), r);
        self.tiers.clear();
        self.tiers.resize(l.len(), 0);
        // Lanes say which candidates end the game and with what score, so the judge's watch is
        // needed only for the latches: every candidate is ranked by them here.
        if !goals.is_empty() && (knowledge.tactics || judge.is_none() || lanes.is_some()) {
            self.candidates.clear();
            self.candidates.extend(0..l.len());
            let bases = knowledge.latch_watch.bases();
            match lanes.as_deref() {
                Some(st) => watched(st, &self.candidates, bases, &mut self.bits),
                None => {
                    pick(l, &self.candidates, &mut self.chosen);
                    look.lookahead(state, joint, r, &self.chosen, &knowledge.latch_watch, &mut self.bits);
                }
            }
            rank(&mut self.tiers, &self.candidates, &self.bits, bases, &mut self.after, |after| {
                Ok(tier(now, goals.range(after.words(), r)))
            })?;
        }
        if let Some(j) = judge {
            self.candidates.clear();
            self.candidates.extend((0..l.len()).filter(|&k| !knowledge.tactics || ending.bit(l[k] as usize)));
            if !self.candidates.is_empty() {
                match lanes {
                    // A candidate that ends the game ranks by its score; the others keep their
                    // tier by the latches (without latches every range is the full one, `now`).
                    Some(st) => {
                        let ended = self.candidates.iter().fold(0u64, |m, &k| m | 1 << k) & st.terminal();
                        for &k in &self.candidates {
                            let then = match ended >> k & 1 == 1 {
                                true => {
                                    let v = st.score(k, r).min(100);
                                    Some(ScoreRange { min: v, max: v })
                                }
                                false if goals.is_empty() => now,
                                false => continue,
                            };
                            self.tiers[k] = tier(now, then);
                        }
                    }
                    None => {
                        let bases = knowledge.watch.bases();
                        pick(l, &self.candidates, &mut self.chosen);
                        look.lookahead(state, joint, r, &self.chosen, &knowledge.watch, &mut self.bits);
                        rank(&mut self.tiers, &self.candidates, &self.bits, bases, &mut self.after, |after| {
                            // A candidate that ended the game: its score by the judge.
                            let then = match j.is_terminal(after)? {
                                true => {
                                    let v = u32::from(score(&j.goal(after, r)));
                                    Some(ScoreRange { min: v, max: v })
                                }
                                false => goals.range(after.words(), r),
                            };
                            Ok(tier(now, then))
                        })?;
                    }
                }
            }
        }
        Ok(self.tiers.iter().copied().max().unwrap_or(0))
    }

    /// Replaces role `r`'s move in `joint` by the one among its legal moves `l` ranked `best`
    /// that leaves it the most material ahead (looked at with `cm` over `c`'s watch), drawn
    /// uniformly among the equals, unless its move is one of them.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn capture(
        &mut self,
        c: &Captures,
        cm: &mut PropnetMachine,
        lanes: Option<&Group>,
        state: &PropnetState,
        joint: &mut [u32],
        r: usize,
        l: &[u32],
        best: i8,
        rng: &mut SmallRng,
    ) {
        self.candidates.clear();
        self.candidates.extend((0..l.len()).filter(|&k| self.tiers[k] == best));
        pick(l, &self.candidates, &mut self.chosen);
        self.leads.clear();
        match lanes {
            // What each candidate changes of the lead, from the pieces its lane has that the
            // state has not and the other way round (a constant apart, the lead: the draw
            // among the best is the same).
            Some(st) => {
                self.leads.resize(self.candidates.len(), 0);
                let (at, mask) = positions(&self.candidates);
                for (&b, &weight) in c.watch.bases().iter().zip(&c.weights[r]) {
                    let now = u64::from(state.contains(b)).wrapping_neg();
                    let mut changed = (st.base(b) ^ now) & mask;
                    let gain = if now == 0 { weight } else { -weight };
                    while changed != 0 {
                        self.leads[at[changed.trailing_zeros() as usize]] += gain;
                        changed &= changed - 1;
                    }
                }
            }
            None => {
                cm.lookahead(state, joint, r, &self.chosen, &c.watch, &mut self.bits);
                let w = c.watch.bases().len().div_ceil(64);
                let bits = &self.bits;
                self.leads.extend((0..self.chosen.len()).map(|k| c.lead(r, &bits[k * w..(k + 1) * w])));
            }
        }
        if let Some(mv) = redraw(&self.chosen, &self.leads, joint[r], rng) {
            joint[r] = mv;
        }
    }
}

/// One of `moves` whose value (`values` has one per move) is the highest, drawn uniformly, or
/// `None` where `drawn` has it already: a uniform draw among the best is then what it is.
pub(super) fn redraw<T: Ord + Copy>(moves: &[u32], values: &[T], drawn: u32, rng: &mut SmallRng) -> Option<u32> {
    let best = values.iter().copied().max()?;
    if moves.iter().position(|&mv| mv == drawn).is_some_and(|k| values[k] == best) {
        return None;
    }
    let mut pick = Best::new();
    for (k, _) in values.iter().enumerate().filter(|&(_, &v)| v == best) {
        pick.offer(moves[k], 0.0, rng);
    }
    pick.get()
}

/// The moves of `legal` at `indices`, into `out`.
fn pick(legal: &[u32], indices: &[usize], out: &mut Vec<u32>) {
    out.clear();
    out.extend(indices.iter().map(|&k| legal[k]));
}

/// Per lane, its position among `lanes` (the stepper's lanes of some candidates), and the mask
/// of those lanes.
fn positions(lanes: &[usize]) -> ([usize; Stepper::LANES], u64) {
    let mut at = [0usize; Stepper::LANES];
    let mut mask = 0u64;
    for (k, &lane) in lanes.iter().enumerate() {
        at[lane] = k;
        mask |= 1 << lane;
    }
    (at, mask)
}

/// What a look-ahead over `bases` gives for the candidates in lanes `lanes` of an expansion,
/// read from the lanes: bit j of `out[k * w..(k + 1) * w]` (`w` words per candidate) is base
/// `bases[j]` in lane `lanes[k]`'s successor.
fn watched(st: &Group, lanes: &[usize], bases: &[usize], out: &mut Vec<u64>) {
    let w = bases.len().div_ceil(64);
    out.clear();
    out.resize(lanes.len() * w, 0);
    if lanes.is_empty() {
        return;
    }
    let (at, mask) = positions(lanes);
    // Most bases are alike in every candidate's successor: those true in all of them are set in
    // the first row, copied to the others; only the rest are set lane by lane.
    for (j, &b) in bases.iter().enumerate() {
        if st.base(b) & mask == mask {
            out[j / 64] |= 1 << (j % 64);
        }
    }
    for k in 1..lanes.len() {
        out.copy_within(0..w, k * w);
    }
    for (j, &b) in bases.iter().enumerate() {
        let mut word = st.base(b) & mask;
        if word == mask {
            continue;
        }
        while word != 0 {
            let lane = word.trailing_zeros() as usize;
            word &= word - 1;
            out[at[lane] * w + j / 64] |= 1 << (j % 64);
        }
    }
}

/// Sets `tiers[candidates[k]]` to what `judge` says of candidate `k`'s next state as far as
/// `watch` (whose next values `bits` hold, candidate by candidate) reads it. Candidates are
/// judged again only when their pattern differs from the one before (most moves change no
/// watched base), and `after` is changed only where it does.
fn rank(
    tiers: &mut [i8],
    candidates: &[usize],
    bits: &[u64],
    watch: &[usize],
    after: &mut PropnetState,
    mut judge: impl FnMut(&PropnetState) -> Result<i8, MachineError>,
) -> Result<(), MachineError> {
    let w = watch.len().div_ceil(64);
    let mut last = 0;
    for (k, &c) in candidates.iter().enumerate() {
        let seen = &bits[k * w..(k + 1) * w];
        let t = if k > 0 && seen == &bits[(k - 1) * w..k * w] {
            last
        } else {
            for (i, &word) in seen.iter().enumerate() {
                // Against the pattern `after` holds: the one before, or for the first candidate
                // whatever an earlier ranking left (every watched bit is compared then).
                let mut diff = match k {
                    0 => !0,
                    _ => word ^ bits[(k - 1) * w + i],
                };
                while diff != 0 {
                    let j = i * 64 + diff.trailing_zeros() as usize;
                    diff &= diff - 1;
                    if let Some(&b) = watch.get(j) {
                        after.set(b, word >> (j % 64) & 1 == 1);
                    }
                }
            }
            judge(after)?
        };
        last = t;
        tiers[c] = t;
    }
    Ok(())
}

/// How a playout ranks a move by the mover's achievable range before it (`now`) and after it:
/// below the rest if it lowers the maximum, above them if it raises the minimum, and highest if
/// it secures the maximum.
fn tier(now: Option<ScoreRange>, after: Option<ScoreRange>) -> i8 {
    let (Some(now), Some(after)) = (now, after) else { return if after.is_none() { -1 } else { 0 } };
    if after.max < now.max {
        -1
    } else if after.min >= now.max && after.min > now.min {
        2
    } else if after.min > now.min {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: u32, max: u32) -> Option<ScoreRange> {
        Some(ScoreRange { min, max })
    }

    #[test]
    fn a_move_is_ranked_by_what_it_does_to_the_movers_range() {
        let open = range(0, 100);
        assert_eq!(tier(open, range(0, 100)), 0, "nothing changes");
        assert_eq!(tier(open, range(0, 50)), -1, "the best is lost");
        assert_eq!(tier(open, None), -1, "nothing is left");
        assert_eq!(tier(open, range(50, 100)), 1, "a floor is gained");
        assert_eq!(tier(open, range(100, 100)), 2, "the best is secured (a win)");
        assert_eq!(tier(range(50, 100), range(100, 100)), 2);
        assert_eq!(tier(range(50, 100), range(50, 50)), -1, "a draw given away");
        assert_eq!(tier(range(50, 50), range(50, 50)), 0, "a decided score stays decided");
        assert_eq!(tier(None, range(0, 100)), 0);
    }
}
