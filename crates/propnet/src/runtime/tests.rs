//! The compiled program, evaluated word-wide and by forward propagation, must compute what
//! [`Net::evaluate`] computes on random nets: constants, sharing, NOT edges, recursion (least
//! fixpoints) and the one-move-per-role rewrite included.

use super::eval;
use super::forward::Forward;
use super::program::{Lit, Phase, Program};
use super::simd::Simd;
use crate::net::{BaseProp, Kind, MoveProp, Net, NodeId};
use proptest::prelude::*;
use structures::Bits;

/// A recipe for a random net: node kinds and inputs are drawn from these numbers.
#[derive(Debug, Clone)]
pub(super) struct Recipe {
    bases: usize,
    role_moves: Vec<usize>,
    /// (kind 0..4, fan-in picks) per acyclic gate.
    gates: Vec<(u8, Vec<u16>)>,
    /// Per recursive group: (is_or per node, outside picks per node).
    cycles: Vec<Vec<(bool, Vec<u16>)>>,
    /// Output picks: legal per move, next per base, goals per role, terminal.
    outputs: Vec<u16>,
    /// Whether a legal output may read a move (invalid GDL, which the runtime must still get right).
    legal_reads_moves: bool,
}

pub(super) fn recipe() -> impl Strategy<Value = Recipe> {
    (1usize..6, proptest::collection::vec(1usize..7, 1..3), any::<bool>()).prop_flat_map(|(bases, role_moves, bad)| {
        let gate = (0u8..8, proptest::collection::vec(any::<u16>(), 1..7));
        let cycle = proptest::collection::vec((any::<bool>(), proptest::collection::vec(any::<u16>(), 0..3)), 1..4);
        (
            Just(bases),
            Just(role_moves),
            proptest::collection::vec(gate, 0..30),
            proptest::collection::vec(cycle, 0..3),
            proptest::collection::vec(any::<u16>(), 40),
            Just(bad),
        )
            .prop_map(|(bases, role_moves, gates, cycles, outputs, legal_reads_moves)| Recipe {
                bases,
                role_moves,
                gates,
                cycles,
                outputs,
                legal_reads_moves,
            })
    })
}

/// Builds the net. Nodes are appended in order; `state_only[n]` says whether node n reads no input.
pub(super) fn build(r: &Recipe) -> Net {
    let mut net = Net {
        kinds: Vec::new(),
        inputs: Vec::new(),
        labels: Vec::new(),
        roles: (0..r.role_moves.len()).map(|i| format!("r{i}")).collect(),
        bases: Vec::new(),
        moves: Vec::new(),
        goals: vec![Vec::new(); r.role_moves.len()],
        terminal: 0,
    };
    let mut state_only = Vec::new();
    let t = net.add(Kind::Const(true), vec![], None);
    let f = net.add(Kind::Const(false), vec![], None);
    state_only.extend([true, true]);
    for i in 0..r.bases {
        let node = net.add(Kind::Base(i as u32), vec![], None);
        net.bases.push(BaseProp::new(format!("(b {i})"), node, 0, i % 2 == 0));
        state_only.push(true);
    }
    for (role, &k) in r.role_moves.iter().enumerate() {
        for j in 0..k {
            let node = net.add(Kind::Input(net.moves.len() as u32), vec![], None);
            net.moves.push(MoveProp { role, name: format!("(m {role} {j})"), node, legal: 0 });
            state_only.push(false);
        }
    }
    let _ = (t, f);
    let pick = |x: u16, n: usize| NodeId::from(x) % n as NodeId;
    for (kind, picks) in &r.gates {
        if *kind >= 6 {
            // An OR of conjunctions sharing one literal (as grounded frame axioms are).
            let n = net.kinds.len();
            let common = pick(picks[0], n);
            let mut terms = Vec::new();
            for &x in &picks[1..] {
                let other = pick(x, n);
                let so = state_only[common as usize] && state_only[other as usize];
                terms.push(net.add(Kind::And, vec![other, common], None));
                state_only.push(so);
            }
            let so = terms.iter().all(|&t| state_only[t as usize]);
            net.add(Kind::Or, terms, None);
            state_only.push(so);
            continue;
        }
        let n = net.kinds.len();
        let ins: Vec<NodeId> = picks.iter().map(|&x| pick(x, n)).collect();
        let (kind, ins) = match kind {
            0 => (Kind::And, ins),
            1 => (Kind::Or, ins),
            2 => (Kind::Not, vec![ins[0]]),
            3 => (Kind::And, vec![ins[0]]),
            // "Some of these moves of one role" (as in frame axioms), the other inputs too.
            k => {
                let role = picks[0] as usize % r.role_moves.len();
                let subset = (0..net.moves.len())
                    .filter(|&j| net.moves[j].role == role && picks.get(1).is_none_or(|&b| b >> (j % 16) & 1 == 1))
                    .map(|j| net.moves[j].node);
                let ins = subset.chain(ins.into_iter().skip(2)).collect();
                (if *k == 4 { Kind::Or } else { Kind::And }, ins)
            }
        };
        let so = ins.iter().all(|&i| state_only[i as usize]);
        net.add(kind, ins, None);
        state_only.push(so);
    }
    for group in &r.cycles {
        // Monotone gates reading each other in a ring plus some earlier nodes: ground recursion.
        let first = net.kinds.len();
        let len = group.len();
        let mut so = true;
        for (k, (is_or, picks)) in group.iter().enumerate() {
            let mut ins: Vec<NodeId> = picks.iter().map(|&x| pick(x, first)).collect();
            so &= ins.iter().all(|&i| state_only[i as usize]);
            ins.push((first + (k + 1) % len) as NodeId);
            net.add(if *is_or { Kind::Or } else { Kind::And }, ins, None);
        }
        state_only.extend(std::iter::repeat_n(so, len));
    }
    let n = net.kinds.len();
    let state_nodes: Vec<NodeId> = (0..n as NodeId).filter(|&i| state_only[i as usize]).collect();
    let mut outs = r.outputs.iter().copied();
    let mut state_pick = || state_nodes[outs.next().unwrap_or(0) as usize % state_nodes.len()];
    for m in 0..net.moves.len() {
        net.moves[m].legal = state_pick();
    }
    for role in 0..net.roles.len() {
        net.goals[role] = vec![(0, state_pick()), (100, state_pick())];
    }
    net.terminal = state_pick();
    let mut outs = r.outputs.iter().rev().copied();
    for b in 0..net.bases.len() {
        net.bases[b].next = pick(outs.next().unwrap_or(0), n);
    }
    if r.legal_reads_moves {
        net.moves[0].legal = pick(outs.next().unwrap_or(0), n);
    }
    net
}

/// Every (base marking, joint move with one move per role) of the net.
fn markings(net: &Net) -> Vec<(Vec<bool>, Vec<bool>)> {
    let nb = net.bases.len();
    let mut joints: Vec<Vec<usize>> = vec![Vec::new()];
    for role in 0..net.roles.len() {
        let mine: Vec<usize> = (0..net.moves.len()).filter(|&j| net.moves[j].role == role).collect();
        joints = joints.into_iter().flat_map(|j| mine.iter().map(move |&m| [j.clone(), vec![m]].concat())).collect();
    }
    let mut out = Vec::new();
    for bits in 0..1u32 << nb {
        let base: Vec<bool> = (0..nb).map(|i| bits >> i & 1 == 1).collect();
        for joint in &joints {
            let mut input = vec![false; net.moves.len()];
            joint.iter().for_each(|&m| input[m] = true);
            out.push((base.clone(), input));
        }
    }
    out
}

/// What a runtime says for one marking: legal (inputs false), terminal, goals, next.
#[derive(Debug, PartialEq, Eq)]
struct Answers {
    legal: Vec<bool>,
    terminal: bool,
    goals: Vec<Vec<bool>>,
    next: Vec<bool>,
}

fn reference(net: &Net, base: &[bool], input: &[bool]) -> Answers {
    let quiet = net.evaluate(base, &vec![false; input.len()]);
    let moved = net.evaluate(base, input);
    Answers {
        legal: net.moves.iter().map(|m| quiet[m.legal as usize]).collect(),
        terminal: quiet[net.terminal as usize],
        goals: net.goals.iter().map(|g| g.iter().map(|&(_, n)| quiet[n as usize]).collect()).collect(),
        next: net.bases.iter().map(|b| moved[b.next as usize]).collect(),
    }
}

/// The answers of the word-wide evaluator, four words wide with every lane in the same state.
fn words(p: &Program, base: &[bool], input: &[bool]) -> Answers {
    let mut vals = vec![[0u64; 4]; p.slots];
    let set = |vals: &mut [[u64; 4]], s: usize, v: bool| vals[s] = [if v { !0 } else { 0 }; 4];
    base.iter().enumerate().for_each(|(i, &v)| set(&mut vals, Program::base_slot(i), v));
    let all = |vals: &mut Vec<[u64; 4]>| {
        for phase in Phase::EVALUATED {
            eval::run(p, phase, vals);
        }
    };
    all(&mut vals);
    let read = |vals: &[[u64; 4]], l: Lit| {
        let x = eval::read(vals, l);
        assert!(x.iter().all(|&w| w == 0 || w == !0) && x.iter().all(|&w| w == x[0]), "lanes disagree");
        x[0] & 1 == 1
    };
    let legal = p.legal.iter().map(|&l| read(&vals, l)).collect();
    let terminal = read(&vals, p.terminal);
    let goals = p.goals.iter().map(|g| g.iter().map(|&(_, l)| read(&vals, l)).collect()).collect();
    input.iter().enumerate().for_each(|(j, &v)| set(&mut vals, p.input_slot(j), v));
    all(&mut vals);
    Answers { legal, terminal, goals, next: p.next.iter().map(|&l| read(&vals, l)).collect() }
}

fn forward(p: &Program, f: &mut Forward, base: &[bool], input: &[bool]) -> Answers {
    let mut state = vec![0u64; base.len().div_ceil(64)];
    base.iter().enumerate().filter(|(_, &v)| v).for_each(|(i, _)| state[i / 64] |= 1 << (i % 64));
    f.set_state(p, &state);
    f.set_moves(p, &[]);
    f.refresh_goals(p);
    // Legal moves and next values as the machine reads them: from the bitsets the propagation
    // keeps, which must say what the literals do.
    let legal: Vec<bool> = (0..p.legal.len()).map(|j| f.legal().bit(j)).collect();
    assert!(p.legal.iter().zip(&legal).all(|(&l, &v)| f.lit(l) == v), "the legal bitset is stale");
    let terminal = f.lit(p.terminal);
    let goals = p.goals.iter().map(|g| g.iter().map(|&(_, l)| f.lit(l)).collect()).collect();
    let moves: Vec<u32> = (0..input.len() as u32).filter(|&j| input[j as usize]).collect();
    f.set_moves(p, &moves);
    let next: Vec<bool> = (0..p.next.len()).map(|i| f.next().bit(i)).collect();
    assert!(p.next.iter().zip(&next).all(|(&l, &v)| f.lit(l) == v), "the next bitset is stale");
    Answers { legal, terminal, goals, next }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn compiled_program_computes_what_the_net_does(r in recipe()) {
        let net = build(&r);
        let p = Program::new(&net);
        prop_assert!(!(p.exclusive && p.outputs_read_inputs));
        let mut f = Forward::new(&p);
        for (base, input) in markings(&net) {
            let want = reference(&net, &base, &input);
            prop_assert_eq!(&words(&p, &base, &input), &want, "word-wide, base {:?} input {:?}", base, input);
            prop_assert_eq!(&forward(&p, &mut f, &base, &input), &want, "forward, base {:?} input {:?}", base, input);
        }
    }

    /// Native code from either backend computes every slot of every lane as the interpreter
    /// does, each lane in a marking of its own.
    #[test]
    fn native_code_computes_what_the_interpreter_does(r in recipe(), seed in any::<u64>()) {
        let net = build(&r);
        let mut native = Program::new(&net);
        prop_assert!(native.native().is_some(), "{:?}", native.interpreted_because());
        lanes_agree(&native, &native.interpreted(), seed)?;
        let portable = super::native::compile_with(&native, None, super::native::Backend::Cranelift);
        native.native = Ok(std::sync::Arc::new(portable.expect("Cranelift compiles the program")));
        lanes_agree(&native, &native.interpreted(), seed)?;
    }

    /// Wide markings evaluated with each kind of vector instructions the processor has (both
    /// kinds on a processor with AVX-512, none but the portable loop elsewhere) compute every
    /// slot of every lane as the portable loop does.
    #[test]
    fn vector_instructions_compute_what_the_portable_loop_does(r in recipe(), seed in any::<u64>()) {
        let p = Program::new(&build(&r)).interpreted();
        vectors_agree::<4>(&p, seed)?;
        vectors_agree::<8>(&p, seed)?;
        vectors_agree::<16>(&p, seed)?;
    }
}

/// Evaluates every phase of both programs over the same 64 random lanes of bases and inputs (one
/// move per role in each lane, as the move phase assumes) and compares every slot.
fn lanes_agree(native: &Program, interpreted: &Program, seed: u64) -> Result<(), TestCaseError> {
    let mut vals = random_lanes::<1>(native, seed);
    let mut other = vals.clone();
    for phase in Phase::EVALUATED {
        eval::run(native, phase, &mut vals);
        eval::run(interpreted, phase, &mut other);
    }
    prop_assert!(vals == other, "native and interpreted markings differ");
    Ok(())
}

/// A marking of `p` with 64·W random lanes of bases, and one move per role in each lane.
pub(super) fn random_lanes<const W: usize>(p: &Program, seed: u64) -> Vec<[u64; W]> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut vals = vec![[0u64; W]; p.slots];
    for i in 0..p.base_count() {
        vals[Program::base_slot(i)] = std::array::from_fn(|_| rng.random());
    }
    for moves in &p.role_moves {
        for lane in 0..64 * W {
            let m = moves[rng.random_range(0..moves.len())];
            vals[p.input_slot(m as usize)][lane / 64] |= 1 << (lane % 64);
        }
    }
    vals
}

/// Evaluates every phase over `W` words of random lanes with each kind of vector instructions
/// this processor has, and compares every slot with the portable loop's; again in a marking
/// padded to the size from which the kernels prefetch.
fn vectors_agree<const W: usize>(p: &Program, seed: u64) -> Result<(), TestCaseError> {
    let start = random_lanes::<W>(p, seed);
    let mut want = start.clone();
    Phase::EVALUATED.into_iter().for_each(|phase| eval::run_with(p, phase, &mut want, Simd::Portable));
    let mut padded = start.clone();
    padded.resize(super::simd::PREFETCH_MARKING.div_ceil(std::mem::size_of::<[u64; W]>()).max(p.slots), [0; W]);
    for simd in Simd::available() {
        for start in [&start, &padded] {
            let mut got = start.clone();
            Phase::EVALUATED.into_iter().for_each(|phase| eval::run_with(p, phase, &mut got, simd));
            prop_assert!(got[..p.slots] == want[..], "{:?} differs from the portable loop, {} words a slot", simd, W);
        }
    }
    Ok(())
}

/// The optimised net of a bundled game.
pub(super) fn bundled(name: &str) -> Net {
    let game = games::find(name).expect("bundled");
    let (desc, _) = gdl::load(game.file, game.text).expect("valid");
    crate::compile(&desc, &Default::default()).expect("builds")
}

#[test]
fn native_code_in_many_small_functions_computes_what_the_interpreter_does() {
    // Breakthrough's net compiled 64 gate inputs to a function: runs of gates split across
    // functions, as the large nets' are.
    let mut p = Program::new(&bundled("breakthrough"));
    let code = super::native::compile_in_chunks(&p, None, 64).expect("compiles");
    assert!(code.functions > 40, "{} functions", code.functions);
    p.native = Ok(std::sync::Arc::new(code));
    for seed in 0..20 {
        lanes_agree(&p, &p.interpreted(), seed).expect("the same marking");
    }
}

#[test]
fn a_lookahead_64_candidates_a_pass_sees_what_one_at_a_time_sees() {
    use machine::StateMachine;
    use rand::{Rng, SeedableRng};
    // Breakthrough's pawns have 20-odd moves: batched from 8 candidates on; over 64 of them (a
    // whole role's input list) the candidates take two passes.
    let net = bundled("breakthrough");
    let mut m = super::PropnetMachine::new(&net);
    let watch = super::Watch::new(m.program(), (0..m.program().base_count()).collect());
    let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
    let mut state = m.initial_state();
    let (mut batched, mut single) = (Vec::new(), Vec::new());
    let mut compared = 0;
    while !m.is_terminal(&state).expect("terminal") {
        let legal: Vec<Vec<u32>> = (0..2).map(|r| m.legal_moves(&state, r).expect("legal")).collect();
        let joint: Vec<u32> = legal.iter().map(|l| l[rng.random_range(0..l.len())]).collect();
        for (role, moves) in legal.iter().enumerate() {
            let all = &m.program().role_moves[role].clone();
            for candidates in [moves, all] {
                m.lookahead(&state, &joint, role, candidates, &watch, &mut batched);
                single.clear();
                single.resize(batched.len(), 0);
                m.lookahead_one_by_one(&joint, role, candidates, &watch, &mut single);
                assert_eq!(batched, single, "{} candidates", candidates.len());
                compared += usize::from(candidates.len() >= super::machine::BATCHED_LOOKAHEAD);
            }
        }
        state = m.next_state(&state, &joint).expect("next");
    }
    assert!(compared > 20, "{compared} batched look-aheads");
}

#[test]
fn shared_program_and_machines_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Program>();
    send::<super::PropnetMachine>();
    send_sync::<super::PropnetState>();
}

#[test]
fn playouts_from_several_states_each_start_in_their_own() {
    use machine::StateMachine;
    use rand::SeedableRng;
    let net = bundled("tictactoe");
    let mut m = super::PropnetMachine::new(&net);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    let initial = m.initial_state();
    let charge = m.depth_charges(&initial, 1, &mut rng, 100).remove(0);
    let end = charge.playout.final_state;
    let starts = [&initial, &end, &initial];
    let mut seen = Vec::new();
    m.playout_each(&starts, &mut rng, 100, true, None, &mut || true, &mut |e| {
        seen.push((e.origin, e.length, e.goals.to_vec(), e.trace.len()));
    });
    seen.sort_by_key(|s| s.0);
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!((seen[1].1, &seen[1].2, seen[1].3), (0, &charge.playout.goals, 0));
    for s in [&seen[0], &seen[2]] {
        assert!(s.1 >= 5, "a game of tictactoe lasts at least five moves");
        assert_eq!(s.3, 2 * s.1 as usize, "two roles' moves per step");
    }
    // Stopped at the first step, only the playout that started in a terminal state has ended.
    let mut ended = Vec::new();
    m.playout_each(&starts, &mut rng, 100, false, None, &mut || false, &mut |e| ended.push(e.origin));
    assert_eq!(ended, [1]);
}

#[test]
fn a_greedy_policy_plays_the_legal_move_of_highest_value_and_a_partial_one_mixes() {
    use machine::StateMachine;
    use rand::SeedableRng;
    let net = bundled("tictactoe");
    let mut m = super::PropnetMachine::new(&net);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
    let initial = m.initial_state();
    let centre = m.find_move(0, "(mark 2 2)").expect("a move");
    let corner = m.find_move(1, "(mark 1 1)").expect("a move");
    let mut values = vec![0.1f32; m.program().move_count()];
    values[centre as usize] = 0.9;
    values[corner as usize] = 0.8;
    let starts = [&initial; 64];
    // Always greedy: x opens in the centre and o answers in the corner, in every lane.
    let policy = super::MovePolicy { values: &values, greedy: 1.0 };
    let mut openings = Vec::new();
    m.playout_each(&starts, &mut rng, 100, true, Some(policy), &mut || true, &mut |e| {
        openings.push(e.trace[..4].to_vec());
    });
    assert_eq!(openings.len(), 64);
    for opening in &openings {
        assert_eq!((opening[0], opening[3]), (centre, corner), "x's first move and o's answer");
    }
    // Greedy half the time: the centre in about half the lanes plus a ninth of the rest.
    let policy = super::MovePolicy { values: &values, greedy: 0.5 };
    let mut centres = 0;
    for _ in 0..10 {
        m.playout_each(&starts, &mut rng, 100, true, Some(policy), &mut || true, &mut |e| {
            centres += usize::from(e.trace[0] == centre);
        });
    }
    let share = centres as f64 / 640.0;
    assert!((0.45..0.68).contains(&share), "{share}: expected about 0.56");
}

#[test]
fn lookahead_reads_what_next_state_computes() {
    use machine::StateMachine;
    use rand::{Rng, SeedableRng};
    for name in ["tictactoe", "connectfour", "buttonsandlights"] {
        let net = bundled(name);
        let mut m = super::PropnetMachine::new(&net);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        // Every base watched, across a word boundary when the game has more than 64.
        let watch: Vec<usize> = (0..m.program().base_count()).rev().collect();
        // And every third base on a net cut down to them.
        let few: Vec<usize> = watch.iter().copied().filter(|b| b % 3 == 0).collect();
        let mut cut = super::PropnetMachine::new(&crate::cut::to_next(&net, &few));
        let (all_watch, few_watch) =
            (super::Watch::new(m.program(), watch.clone()), super::Watch::new(cut.program(), few.clone()));
        let mut cut_out = Vec::new();
        let w = watch.len().div_ceil(64);
        let roles = m.roles().len();
        let mut out = Vec::new();
        for _ in 0..20 {
            let mut state = m.initial_state();
            while !m.is_terminal(&state).unwrap() {
                let legal: Vec<Vec<u32>> = (0..roles).map(|r| m.legal_moves(&state, r).unwrap()).collect();
                let joint: Vec<u32> = legal.iter().map(|l| l[rng.random_range(0..l.len())]).collect();
                for (r, l) in legal.iter().enumerate() {
                    m.lookahead(&state, &joint, r, l, &all_watch, &mut out);
                    cut.lookahead(&state, &joint, r, l, &few_watch, &mut cut_out);
                    for (k, &c) in l.iter().enumerate() {
                        let mut j = joint.clone();
                        j[r] = c;
                        let next = m.next_state(&state, &j).unwrap();
                        for (i, &b) in watch.iter().enumerate() {
                            let bit = out[k * w + i / 64] >> (i % 64) & 1 == 1;
                            assert_eq!(bit, next.contains(b), "{name}: base {b} after move {c}");
                        }
                        let fw = few.len().div_ceil(64);
                        for (i, &b) in few.iter().enumerate() {
                            let bit = cut_out[k * fw + i / 64] >> (i % 64) & 1 == 1;
                            assert_eq!(bit, next.contains(b), "{name}, cut net: base {b} after move {c}");
                        }
                    }
                }
                state = m.next_state(&state, &joint).unwrap();
            }
        }
    }
}

#[test]
fn outcome_net_judges_states_as_the_whole_net_does() {
    use machine::StateMachine;
    use rand::{Rng, SeedableRng};
    for name in ["tictactoe", "connectfour", "buttonsandlights"] {
        let net = bundled(name);
        let read = net.bases_read(net.goals.iter().flatten().map(|&(_, n)| n).chain([net.terminal]));
        assert!(!read.is_empty() && read.windows(2).all(|w| w[0] < w[1]), "{name}: {read:?}");
        let mut m = super::PropnetMachine::new(&net);
        let mut judge = super::PropnetMachine::new(&crate::cut::to_outcome(&net));
        assert!(judge.legal_moves(&m.initial_state(), 0).unwrap().is_empty(), "{name}: nothing legal on the cut net");
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let roles = m.roles().len();
        for _ in 0..20 {
            let mut state = m.initial_state();
            loop {
                // Bases the outcome does not read may be anything: the judgement stays.
                let mut noisy = state.clone();
                for b in (0..m.program().base_count()).filter(|b| read.binary_search(b).is_err()) {
                    noisy.set(b, rng.random());
                }
                let terminal = m.is_terminal(&state).unwrap();
                assert_eq!(judge.is_terminal(&noisy).unwrap(), terminal, "{name}");
                for r in 0..roles {
                    assert_eq!(judge.goal_values(&noisy, r).unwrap(), m.goal_values(&state, r).unwrap(), "{name}");
                }
                if terminal {
                    break;
                }
                let joint: Vec<u32> = (0..roles)
                    .map(|r| {
                        let l = m.legal_moves(&state, r).unwrap();
                        l[rng.random_range(0..l.len())]
                    })
                    .collect();
                state = m.next_state(&state, &joint).unwrap();
            }
        }
    }
}

/// Calls a draw every game that ends with all of `row` held (x's three in a row on the first
/// row, in tic-tac-toe), and knows nothing else.
#[derive(Debug)]
struct DrawWhereHeld {
    row: Vec<usize>,
}

impl super::GoalOracle for DrawWhereHeld {
    fn goals(&self, state: &[u64], out: &mut [u32]) -> bool {
        let held = |b: usize| state[b / 64] >> (b % 64) & 1 == 1;
        if !self.row.iter().all(|&b| held(b)) {
            return false;
        }
        out.fill(50);
        true
    }
}

#[test]
fn an_oracle_gives_the_goals_it_knows_and_the_net_the_rest() {
    use machine::StateMachine;
    use rand::SeedableRng;
    use std::sync::Arc;
    let net = bundled("tictactoe");
    let base = |name: &str| net.bases.iter().position(|b| b.name == name).expect("base");
    let row = vec![base("(cell 1 1 x)"), base("(cell 1 2 x)"), base("(cell 1 3 x)")];
    let mut plain = super::PropnetMachine::new(&net);
    let mut told = plain.sibling();
    told.set_goal_oracle(Some(Arc::new(DrawWhereHeld { row: row.clone() })));
    let initial = plain.initial_state();
    let play = |m: &mut super::PropnetMachine| {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let mut out = Vec::new();
        for _ in 0..30 {
            m.playout_each(&[&initial; 64], &mut rng, 20, false, None, &mut || true, &mut |e| {
                let on_row = row.iter().all(|&b| e.holds(b));
                let goals: Vec<u32> = e.goals.iter().map(|g| *g.as_ref().expect("a goal")).collect();
                out.push((e.origin, on_row, goals));
            });
        }
        out
    };
    let (a, b) = (play(&mut plain), play(&mut told));
    assert_eq!(a.len(), b.len());
    let mut told_apart = 0;
    for ((origin_a, row_a, goals_a), (origin_b, row_b, goals_b)) in a.iter().zip(&b) {
        assert_eq!((origin_a, row_a), (origin_b, row_b), "the same playouts");
        if *row_a {
            assert_eq!(goals_a, &[100, 0], "the net: x won");
            assert_eq!(goals_b, &[50, 50], "the oracle's word");
            told_apart += 1;
        } else {
            assert_eq!(goals_a, goals_b);
        }
    }
    assert!(told_apart > 10, "only {told_apart} games won on the first row");
}

#[test]
fn an_oracle_answers_for_playouts_parked_in_wide_markings() {
    // 1,100 playouts from one state on a net big enough for wide markings: the parked playouts'
    // goals are evaluated 512 or 1,024 at a time, and the oracle answers some of them.
    use machine::playout::PlayoutEnd;
    use machine::StateMachine;
    use rand::SeedableRng;
    use std::sync::Arc;
    let net = bundled("breakthrough");
    let corner = net.bases.iter().position(|b| b.name == "(cellholds 1 1 white)").expect("base");
    let mut plain = super::PropnetMachine::new(&net);
    assert!(plain.program().slots >= super::machine::WIDE_SLOTS, "a net too small for wide markings");
    let mut told = plain.sibling();
    told.set_goal_oracle(Some(Arc::new(DrawWhereHeld { row: vec![corner] })));
    let initial = plain.initial_state();
    let play = |m: &mut super::PropnetMachine| {
        m.depth_charges(&initial, 1100, &mut rand::rngs::SmallRng::seed_from_u64(4), 200)
    };
    let (a, b) = (play(&mut plain), play(&mut told));
    assert_eq!(a.len(), 1100);
    let mut told_apart = 0;
    for (a, b) in a.iter().zip(&b) {
        assert_eq!((&a.moves, &a.playout.final_state), (&b.moves, &b.playout.final_state), "the same playouts");
        if a.playout.end == PlayoutEnd::Terminal && a.playout.final_state.contains(corner) {
            assert_eq!(b.playout.goals, [Ok(50), Ok(50)], "the oracle's word");
            told_apart += 1;
        } else {
            assert_eq!(a.playout.goals, b.playout.goals, "the net's goals");
        }
    }
    assert!(told_apart > 100 && told_apart < 1000, "{told_apart} of 1,100 games ended with the corner held");
}

#[test]
fn random_playouts_choose_every_legal_move_alike() {
    // The first move of 2,200 wide playouts: uniform over the mover's legal moves, whether they
    // are many lanes' each and picked from per-lane bitsets (breakthrough's 22 opening moves)
    // or few and walked (connect four's columns).
    use machine::StateMachine;
    use rand::SeedableRng;
    for (game, moves) in [("breakthrough", 22), ("connectFour", 7)] {
        let net = bundled(game);
        let mut m = super::PropnetMachine::new(&net);
        let initial = m.initial_state();
        let charges = m.depth_charges(&initial, 2200, &mut rand::rngs::SmallRng::seed_from_u64(9), 200);
        let mut seen = std::collections::BTreeMap::<u32, usize>::new();
        for c in &charges {
            // The first role moves first in both.
            *seen.entry(c.moves[0][0]).or_default() += 1;
        }
        assert_eq!(seen.len(), moves, "{game}: every opening move played");
        let expected = 2200 / moves;
        for (&mv, &n) in &seen {
            // Five standard deviations either way.
            let sd = (expected as f64).sqrt();
            assert!(
                (n as f64 - expected as f64).abs() < 5.0 * sd,
                "{game}: move {mv} played {n} times, not about {expected}"
            );
        }
    }
}
