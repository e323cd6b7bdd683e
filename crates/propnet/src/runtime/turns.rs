//! Programs specialised to whose turn it is.
//!
//! In most games that alternate, whose turn it is follows a fixed cycle: `(control white)` and
//! `(control black)` swap at every step whatever is played. A state of one turn never needs the
//! gates that only compute the other side's legal moves (in chess, half of every state's gates:
//! whether each of the waiting side's moves would leave its king attacked). The base
//! propositions whose next values read only each other, never a move, are such a clock; a group
//! of them that returns to a value it had within [`MAX_TURNS`] steps from the initial state is
//! a cycle of turns, and the whole program is folded once more per turn with those propositions
//! fixed to the turn's values and laid out again, which prunes what the turn does not need
//! (`Program::fold`). Bit-sliced playouts whose lanes all stand at the same
//! turn run that turn's program, exact for every state of that turn; lanes at different turns
//! run the whole program.

use super::program::{Lit, Phase, Program};
use rustc_hash::FxHashMap;

/// The most turns a cycle may have: each is a program of its own.
pub(crate) const MAX_TURNS: usize = 4;

/// The most nodes a clock proposition's next value may be computed from.
const CONE: usize = 256;

/// The turn programs of a net.
#[derive(Debug)]
pub(crate) struct Turns {
    /// The base propositions (indices) whose values say whose turn it is.
    bases: Vec<u32>,
    /// Per turn, its values of `bases` (bit k: `bases[k]`) and the program specialised to it.
    turns: Vec<(u64, Program)>,
}

impl Turns {
    /// The turns of the cycle found by [`cycle`], each with its program.
    pub(crate) fn new(bases: Vec<u32>, turns: Vec<(u64, Program)>) -> Turns {
        Turns { bases, turns }
    }

    /// The same turns, every program `f` of what it was.
    pub(crate) fn map(&self, f: impl Fn(&Program) -> Program) -> Turns {
        Turns { bases: self.bases.clone(), turns: self.turns.iter().map(|(k, p)| (*k, f(p))).collect() }
    }

    /// The turn programs.
    pub(crate) fn programs(&self) -> impl Iterator<Item = &Program> {
        self.turns.iter().map(|(_, p)| p)
    }

    /// The turn the `lanes` all stand at, where `base(i)` is base proposition i (64·W lanes), as
    /// the values of the turn's propositions, or `None` where they differ.
    #[inline]
    pub(crate) fn key<const W: usize>(&self, base: impl Fn(usize) -> [u64; W], lanes: [u64; W]) -> Option<u64> {
        let mut key = 0;
        for (k, &b) in self.bases.iter().enumerate() {
            let w = base(b as usize);
            let on: [u64; W] = std::array::from_fn(|i| w[i] & lanes[i]);
            if on == lanes {
                key |= 1 << k;
            } else if on.iter().any(|&x| x != 0) {
                return None;
            }
        }
        Some(key)
    }

    /// The program of the turn the `lanes` all stand at, if they do and it is one of the cycle's.
    #[inline]
    pub(crate) fn program<const W: usize>(&self, bases: &[[u64; W]], lanes: [u64; W]) -> Option<&Program> {
        self.turn(|b| bases[b], lanes).map(|t| self.get(t))
    }

    /// The index of the turn the `lanes` all stand at (see [`key`](Self::key)), if they do and
    /// it is one of the cycle's.
    #[inline]
    pub(crate) fn turn<const W: usize>(&self, base: impl Fn(usize) -> [u64; W], lanes: [u64; W]) -> Option<usize> {
        let key = self.key(base, lanes)?;
        self.turns.iter().position(|(k, _)| *k == key)
    }

    /// The program of turn `turn` (an index [`turn`](Self::turn) gave).
    #[inline]
    pub(crate) fn get(&self, turn: usize) -> &Program {
        &self.turns[turn].1
    }
}

/// How many of `p`'s gates for every state are left when the base propositions `fixed` are
/// constants: gates with a false input or only true ones are constants, and a gate no output
/// reads but through constants is not needed. Reads the laid-out program, so that a turn not
/// worth a program of its own costs a pass over the gates, not a layout.
pub(crate) fn core_gates_left(p: &Program, fixed: &[(u32, bool)]) -> usize {
    // Per slot: 0 unknown, 1 false, 2 true.
    let mut known = vec![0u8; p.slots];
    known[0] = 1;
    for &(b, v) in fixed {
        known[Program::base_slot(b as usize)] = 1 + u8::from(v);
    }
    let cyclic: Vec<bool> = {
        let mut c = vec![false; p.slots - p.first_gate];
        p.blocks.iter().flat_map(Clone::clone).for_each(|g| c[g] = true);
        c
    };
    let lit = |known: &[u8], l: Lit| match known[(l >> 1) as usize] {
        0 => 0,
        k => 1 + u8::from((k == 2) != (l & 1 == 1)),
    };
    for g in (0..p.slots - p.first_gate).filter(|&g| !cyclic[g]) {
        let ins = p.gate_inputs(g);
        known[p.first_gate + g] = if ins.iter().any(|&l| lit(&known, l) == 1) {
            1
        } else if ins.iter().all(|&l| lit(&known, l) == 2) {
            2
        } else {
            0
        };
    }
    let mut needed = vec![false; p.slots];
    for &l in p.legal.iter().chain(&p.next).chain([&p.terminal]) {
        needed[(l >> 1) as usize] = true;
    }
    for g in (0..p.slots - p.first_gate).rev() {
        let s = p.first_gate + g;
        if needed[s] && known[s] == 0 {
            p.gate_inputs(g).iter().for_each(|&l| needed[(l >> 1) as usize] = true);
        }
    }
    p.segments(Phase::Core)
        .iter()
        .flat_map(|seg| seg.gates.clone())
        .filter(|&g| needed[p.first_gate + g] && known[p.first_gate + g] == 0)
        .count()
}

/// The slots a proposition's next value is computed from (bases and acyclic gates of the
/// laid-out program), in evaluation order, and the base propositions among them; `None` where
/// it reads a move, runs through recursion or takes more than [`CONE`] gates.
struct Cone {
    order: Vec<usize>,
    bases: Vec<u32>,
    root: Lit,
}

/// Per slot of `p`, whether it reads a move or a recursive block, directly or through gates: one
/// pass over the gates in evaluation order.
fn unclocked(p: &Program) -> Vec<bool> {
    let mut out = vec![false; p.slots];
    (p.input_slot(0)..p.first_gate).for_each(|s| out[s] = true);
    p.blocks.iter().flat_map(Clone::clone).for_each(|g| out[p.first_gate + g] = true);
    for g in 0..p.slots - p.first_gate {
        if !out[p.first_gate + g] {
            out[p.first_gate + g] = p.gate_inputs(g).iter().any(|&l| out[(l >> 1) as usize]);
        }
    }
    out
}

/// The cone of the next value `root` (see [`Cone`]), where it is one.
fn cone(p: &Program, root: Lit, unclocked: &[bool]) -> Option<Cone> {
    if unclocked[(root >> 1) as usize] {
        return None;
    }
    let mut seen: FxHashMap<usize, ()> = FxHashMap::default();
    let mut stack: Vec<(usize, usize)> = vec![((root >> 1) as usize, 0)];
    seen.insert((root >> 1) as usize, ());
    let (mut order, mut bases) = (Vec::new(), Vec::new());
    while let Some(top) = stack.last_mut() {
        let s = top.0;
        let ins = s.checked_sub(p.first_gate).map_or(&[][..], |g| p.gate_inputs(g));
        if top.1 < ins.len() {
            let w = (ins[top.1] >> 1) as usize;
            top.1 += 1;
            if seen.insert(w, ()).is_none() {
                if seen.len() > CONE {
                    return None;
                }
                stack.push((w, 0));
            }
        } else {
            if (1..p.input_slot(0)).contains(&s) {
                bases.push((s - 1) as u32);
            }
            order.push(s);
            stack.pop();
        }
    }
    Some(Cone { order, bases, root })
}

/// The value of `cone`'s root given the base propositions' values.
fn evaluate(p: &Program, cone: &Cone, base: &dyn Fn(u32) -> bool) -> bool {
    let mut value: FxHashMap<usize, bool> = FxHashMap::default();
    for &s in &cone.order {
        let x = match s.checked_sub(p.first_gate) {
            Some(g) => p.gate_inputs(g).iter().all(|&l| value[&((l >> 1) as usize)] != (l & 1 == 1)),
            None if s == 0 => false,
            None => base((s - 1) as u32),
        };
        value.insert(s, x);
    }
    value[&((cone.root >> 1) as usize)] != (cone.root & 1 == 1)
}

/// The root of `x`'s set, halving paths on the way.
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

/// The values `bases` (with `cones[i]` each base's next value) take step by step from the
/// initial state, while they have not repeated: `Some` with every distinct value seen when they
/// return to one within [`MAX_TURNS`] steps, after at least two distinct ones.
fn turns_of(p: &Program, bases: &[u32], cones: &[Option<Cone>]) -> Option<Vec<u64>> {
    let at: FxHashMap<u32, usize> = bases.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    let mut now: u64 = bases.iter().enumerate().filter(|(_, &b)| p.init[b as usize]).map(|(k, _)| 1 << k).sum();
    let mut seen = vec![now];
    for _ in 0..MAX_TURNS {
        let read = |b: u32| now >> at[&b] & 1 == 1;
        now = bases
            .iter()
            .enumerate()
            .filter(|(_, &b)| evaluate(p, cones[b as usize].as_ref().expect("a clock proposition"), &read))
            .map(|(k, _)| 1u64 << k)
            .sum();
        if seen.contains(&now) {
            return (seen.len() >= 2).then_some(seen);
        }
        seen.push(now);
    }
    None
}

/// The base propositions (at most 64) that say whose turn it is, and the values they take over
/// the turns the game cycles through from its initial state; `None` where no group of base
/// propositions follows such a cycle whatever is played.
pub(crate) fn cycle(p: &Program) -> Option<(Vec<u32>, Vec<u64>)> {
    let nb = p.base_count();
    let unclocked = unclocked(p);
    let cones: Vec<Option<Cone>> = p.next.iter().map(|&l| cone(p, l, &unclocked)).collect();
    // The clock: propositions whose next values read only clock propositions.
    let mut clock: Vec<bool> = cones.iter().map(Option::is_some).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..nb {
            if clock[i] && cones[i].as_ref().is_some_and(|c| c.bases.iter().any(|&b| !clock[b as usize])) {
                clock[i] = false;
                changed = true;
            }
        }
    }
    // Its independent parts (a step counter is one, the player to move another).
    let mut parent: Vec<u32> = (0..nb as u32).collect();
    for i in (0..nb).filter(|&i| clock[i]) {
        for &b in &cones[i].as_ref().expect("a clock proposition").bases {
            let (x, y) = (find(&mut parent, i as u32), find(&mut parent, b));
            parent[x as usize] = y;
        }
    }
    let mut groups: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for i in (0..nb).filter(|&i| clock[i]) {
        groups.entry(find(&mut parent, i as u32)).or_default().push(i as u32);
    }
    let mut groups: Vec<Vec<u32>> = groups.into_values().collect();
    groups.sort();
    // The parts that cycle, together while their turns stay few.
    let mut chosen: Vec<u32> = Vec::new();
    let mut turns = None;
    for group in groups.iter().filter(|g| g.len() <= 64) {
        if turns_of(p, group, &cones).is_none() || chosen.len() + group.len() > 64 {
            continue;
        }
        let mut with: Vec<u32> = chosen.iter().chain(group).copied().collect();
        with.sort_unstable();
        if let Some(t) = turns_of(p, &with, &cones) {
            chosen = with;
            turns = Some(t);
        }
    }
    turns.map(|t| (chosen, t))
}

#[cfg(test)]
mod tests {
    use super::super::eval::{self, read};
    use super::super::program::{Lit, Phase, Program};

    use super::*;
    use crate::net::Net;
    use rand::{Rng, SeedableRng};

    fn net(name: &str, rules: &str) -> Net {
        let (desc, _) = gdl::load(name, rules).expect("valid");
        crate::compile(&desc, &Default::default()).expect("builds")
    }

    fn bundled(name: &str) -> Net {
        let game = games::find(name).expect("bundled");
        net(game.file, game.text)
    }

    /// The names of the turn propositions and the number of turns.
    fn found(net: &Net) -> Option<(Vec<String>, usize)> {
        let (bases, turns) = cycle(&Program::new(net))?;
        Some((bases.iter().map(|&b| net.bases[b as usize].name.clone()).collect(), turns.len()))
    }

    #[test]
    fn the_side_to_move_is_a_cycle_of_two_turns_and_each_turn_has_a_smaller_program() {
        for game in ["tictactoe", "connectfour", "breakthrough"] {
            let net = bundled(game);
            let (names, turns) = found(&net).unwrap_or_else(|| panic!("{game}: no cycle"));
            assert!(names.iter().all(|n| n.starts_with("(control ")), "{game}: {names:?}");
            assert_eq!(turns, 2, "{game}");
            if game == "connectfour" {
                // Its moves cost little to check: the lines are most of its gates, the same
                // whoever moves, so no turn program is kept.
                assert_eq!(Program::new(&net).stats().turns, 0);
                continue;
            }
            let p = Program::new(&net);
            let stats = p.stats();
            assert_eq!(stats.turns, 2, "{game}");
            assert!(stats.turn_core_gates < stats.core_gates, "{game}: {stats:?}");
            // The estimate that decides whether turn programs are laid out bounds them.
            let t = p.turns.as_deref().expect("turns");
            for (key, q) in &t.turns {
                let fixed: Vec<(u32, bool)> =
                    t.bases.iter().enumerate().map(|(k, &b)| (b, key >> k & 1 == 1)).collect();
                let left = core_gates_left(&p, &fixed);
                assert!(q.stats.core_gates <= left && left < stats.core_gates, "{game}: {left} {:?}", q.stats);
            }
        }
    }

    /// A two-player game whose turn passes on a `move` but not on a `stay`, with a step counter.
    const CHOSEN: &str = "
        (role a) (role b)
        (init (control a)) (init (step 0))
        (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (legal ?r move) (true (control ?r)))
        (<= (legal ?r stay) (true (control ?r)) (true (step 0)))
        (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
        (<= (next (control b)) (does a move))
        (<= (next (control a)) (does a stay))
        (<= (next (control a)) (does b move))
        (<= (next (control b)) (does b stay))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 3)))
        (<= (goal ?r 50) (role ?r))";

    #[test]
    fn a_turn_a_move_decides_and_a_step_counter_are_no_cycle() {
        assert_eq!(found(&net("chosen", CHOSEN)), None);
        // The same game with the turn passing on every move: the counter stays out of it.
        let fixed = CHOSEN
            .replace("(<= (next (control a)) (does a stay))", "")
            .replace("(<= (next (control b)) (does b stay))", "")
            .replace("(<= (next (control b)) (does a move))", "(<= (next (control b)) (true (control a)))")
            .replace("(<= (next (control a)) (does b move))", "(<= (next (control a)) (true (control b)))");
        let (names, turns) = found(&net("fixed", &fixed)).expect("a cycle");
        assert_eq!((names, turns), (vec!["(control a)".to_owned(), "(control b)".to_owned()], 2));
    }

    #[test]
    fn a_turn_program_computes_what_the_whole_program_does_in_every_state_of_its_turn() {
        for game in ["tictactoe", "breakthrough"] {
            let p = Program::new(&bundled(game));
            let turns = p.turns.as_deref().expect("turns");
            let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
            let mut state: Vec<bool> = p.init.clone();
            let mut visited = 0;
            for _ in 0..400 {
                let mut whole = vec![[0u64; 1]; p.slots];
                for (i, &on) in state.iter().enumerate() {
                    whole[Program::base_slot(i)] = [u64::from(on)];
                }
                let bases = whole[1..=p.base_count()].to_vec();
                let q = p.for_lanes(&bases, [1]);
                assert!(!std::ptr::eq(q, &p), "{game}: a reachable state outside the cycle");
                assert!(turns.key(|b| bases[b], [1]).is_some());
                let mut part = vec![[0u64; 1]; q.slots];
                part[..=p.base_count()].copy_from_slice(&whole[..=p.base_count()]);
                eval::run(&p, Phase::Core, &mut whole);
                eval::run(q, Phase::Core, &mut part);
                let lit = |_: &Program, vals: &[[u64; 1]], l| read(vals, l)[0] & 1 == 1;
                assert_eq!(lit(&p, &whole, p.terminal), lit(q, &part, q.terminal), "{game}: terminal");
                let legal: Vec<bool> = p.legal.iter().map(|&l| lit(&p, &whole, l)).collect();
                let legal_q: Vec<bool> = q.legal.iter().map(|&l| lit(q, &part, l)).collect();
                assert_eq!(legal, legal_q, "{game}: legal moves");
                eval::run(&p, Phase::Goal, &mut whole);
                eval::run(q, Phase::Goal, &mut part);
                for (g, h) in p.goals.iter().zip(&q.goals) {
                    let held = |gs: &[(u32, Lit)], prog: &Program, vals: &[[u64; 1]]| -> Vec<u32> {
                        gs.iter().filter(|&&(_, l)| lit(prog, vals, l)).map(|&(v, _)| v).collect()
                    };
                    assert_eq!(held(g, &p, &whole), held(h, q, &part), "{game}: goals");
                }
                if lit(&p, &whole, p.terminal) {
                    state = p.init.clone();
                    continue;
                }
                for moves in &p.role_moves {
                    let open: Vec<u32> = moves.iter().copied().filter(|&m| legal[m as usize]).collect();
                    let m = open[rng.random_range(0..open.len())];
                    whole[p.input_slot(m as usize)] = [1];
                    part[q.input_slot(m as usize)] = [1];
                }
                eval::run(&p, Phase::Move, &mut whole);
                eval::run(q, Phase::Move, &mut part);
                let next: Vec<bool> = p.next.iter().map(|&l| lit(&p, &whole, l)).collect();
                let next_q: Vec<bool> = q.next.iter().map(|&l| lit(q, &part, l)).collect();
                assert_eq!(next, next_q, "{game}: next state");
                state = next;
                visited += 1;
            }
            assert!(visited > 300, "{game}: {visited} states");
        }
    }
}
