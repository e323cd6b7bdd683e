//! Differential tests of the propnet runtime over the whole corpus.
//!
//! * Lockstep: proptest-generated random trajectories are played on the reference reasoner and on
//!   the propnet machine side by side; at every step the printed state, each role's sorted legal
//!   moves, the terminal flag and each role's goal values must agree, and the chosen joint move
//!   must lead to the same next state.
//! * Depth charges: playouts from the batch paths (bit-sliced and forward) are replayed move by
//!   move on the single-state machine, which must reach the same final state with the same end,
//!   length and goals; a few are replayed on the reasoner too.
//!
//! Each game gets a small time budget so the file runs in a couple of minutes in release mode.
//! `PROPNET_GAME=stem` restricts the run to one game; `PROPNET_FILES=a.kif:b.kif` runs it on these
//! files instead of the corpus (public games outside it, such as chess).

use machine::playout::PlayoutEnd;
use machine::{MachineError, StateMachine};
use propnet::runtime::{PropnetMachine, PropnetState, Strategy};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rand::rngs::SmallRng;
use rand::{RngCore, SeedableRng};
use reasoner::Reasoner;
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Longest generated trajectory.
const MAX_STEPS: usize = 60;
/// Wall-clock budget per game and test, checked between steps.
const BUDGET: Duration = Duration::from_secs(2);

/// A corpus game with its net (or why it has none).
struct Game {
    stem: String,
    desc: gdl::Description,
    net: Result<Arc<propnet::Net>, String>,
}

fn shared() -> Option<PathBuf> {
    testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "propnet differential tests")
}

/// Every corpus game, parsed and built once for all tests of this file (on two threads).
fn games() -> &'static [Game] {
    static GAMES: OnceLock<Vec<Game>> = OnceLock::new();
    GAMES.get_or_init(|| {
        let mut files = match std::env::var("PROPNET_FILES") {
            Ok(list) => list.split(':').map(PathBuf::from).collect(),
            Err(_) => {
                let Some(shared) = shared() else { return Vec::new() };
                testkit::shared::games_with_propnet(&shared)
            }
        };
        let only = std::env::var("PROPNET_GAME").ok();
        files.retain(|p| only.as_ref().is_none_or(|o| testkit::shared::stem(p) == *o));
        let queue = Mutex::new(files);
        let built = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| loop {
                    let Some(file) = queue.lock().expect("queue").pop() else { break };
                    let game = load(&file);
                    built.lock().expect("games").push(game);
                });
            }
        });
        let mut games = built.into_inner().expect("games");
        games.sort_by(|a, b| a.stem.cmp(&b.stem));
        games
    })
}

fn load(file: &Path) -> Game {
    let stem = testkit::shared::stem(file);
    let text = testkit::shared::read_text(file).expect("readable game");
    let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("corpus game validates");
    let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(30)), ..Default::default() };
    let net = propnet::compile(&desc, &limits).map(Arc::new).map_err(|e| e.to_string());
    Game { stem, desc, net }
}

/// Runs `check` on every game with a net, on two threads; panics listing every failure.
fn for_each_game(name: &str, check: impl Fn(&Game, &propnet::Net) -> Result<String, String> + Sync) {
    let games = games();
    let next = Mutex::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("index");
                    *n += 1;
                    *n - 1
                };
                let Some(game) = games.get(i) else { break };
                let result = match &game.net {
                    Ok(net) => check(game, net),
                    Err(e) => Ok(format!("no net ({e}), skipped")),
                };
                results.lock().expect("results").push((game.stem.clone(), result));
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort();
    let mut failures = Vec::new();
    for (stem, result) in &results {
        match result {
            Ok(note) => eprintln!("{name}: {stem:28} {note}"),
            Err(e) => failures.push(format!("{stem}: {e}")),
        }
    }
    let tested = results.iter().filter(|(_, r)| r.as_ref().is_ok_and(|n| !n.contains("skipped"))).count();
    eprintln!("{name}: {tested} games tested, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if shared().is_some() && std::env::var_os("PROPNET_GAME").is_none() && std::env::var_os("PROPNET_FILES").is_none() {
        assert!(tested >= 50, "only {tested} games had a net");
    }
}

/// A reproducible index below `n` for role `role` from a generated choice.
fn pick(choice: u64, role: usize, n: usize) -> usize {
    let mut x = choice ^ (role as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 29;
    (x % n as u64) as usize
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

/// Plays `choices` on both machines in lockstep, comparing everything at every step. Returns the
/// number of states compared.
fn lockstep(
    r: &mut Reasoner,
    p: &mut PropnetMachine,
    choices: &[u64],
    deadline: Instant,
) -> Result<usize, TestCaseError> {
    let fail = |step: usize, what: String| TestCaseError::fail(format!("step {step}: {what}"));
    prop_assert_eq!(r.roles(), p.roles());
    let roles = r.roles().len();
    let (mut rs, mut ps) = (r.initial_state(), p.initial_state());
    for step in 0..=choices.len() {
        prop_assert_eq!(r.state_props(&rs), p.state_props(&ps), "state at step {}", step);
        let terminal = r.is_terminal(&rs).map_err(|e| fail(step, e.to_string()))?;
        prop_assert_eq!(
            terminal,
            p.is_terminal(&ps).map_err(|e| fail(step, e.to_string()))?,
            "terminal at step {}",
            step
        );
        for role in 0..roles {
            let rg = r.goal_values(&rs, role).map_err(|e| fail(step, e.to_string()))?;
            let pg = p.goal_values(&ps, role).map_err(|e| fail(step, e.to_string()))?;
            prop_assert_eq!(rg, pg, "goal values of role {} at step {}", role, step);
        }
        if terminal || step == choices.len() || Instant::now() > deadline {
            return Ok(step + 1);
        }
        let (mut rjoint, mut pjoint) = (Vec::new(), Vec::new());
        for role in 0..roles {
            let rl = r.legal_moves(&rs, role).map_err(|e| fail(step, e.to_string()))?;
            let pl = p.legal_moves(&ps, role).map_err(|e| fail(step, e.to_string()))?;
            let rnames = sorted(rl.iter().map(|m| r.format_move(m)).collect::<Vec<_>>());
            let pnames = sorted(pl.iter().map(|m| p.format_move(m)).collect::<Vec<_>>());
            prop_assert_eq!(&rnames, &pnames, "legal moves of role {} at step {}", role, step);
            if rnames.is_empty() {
                return Ok(step + 1);
            }
            let name = &rnames[pick(choices[step], role, rnames.len())];
            rjoint.push(rl.into_iter().find(|m| r.format_move(m) == *name).expect("listed"));
            pjoint.push(pl.into_iter().find(|m| p.format_move(m) == *name).expect("listed"));
        }
        rs = r.next_state(&rs, &rjoint).map_err(|e| fail(step, e.to_string()))?;
        ps = p.next_state(&ps, &pjoint).map_err(|e| fail(step, e.to_string()))?;
    }
    Ok(choices.len() + 1)
}

#[test]
fn propnet_and_reasoner_agree_in_lockstep() {
    for_each_game("lockstep", |game, net| {
        // The runner takes a `Fn`; the machines are per-test scratch, so borrow them dynamically.
        let machines = RefCell::new((Reasoner::new(&game.desc), PropnetMachine::new(net)));
        let deadline = Instant::now() + BUDGET;
        let config = Config { cases: 32, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new_with_rng(
            config,
            proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
        );
        let (states, trajectories) = (Cell::new(0), Cell::new(0));
        let strategy = proptest::collection::vec(any::<u64>(), 0..=MAX_STEPS);
        runner
            .run(&strategy, |choices| {
                if Instant::now() > deadline {
                    return Ok(());
                }
                let (r, p) = &mut *machines.borrow_mut();
                states.set(states.get() + lockstep(r, p, &choices, deadline)?);
                trajectories.set(trajectories.get() + 1);
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        let (states, trajectories) = (states.get(), trajectories.get());
        if states == 0 {
            return Err("nothing compared".into());
        }
        Ok(format!("{trajectories} trajectories, {states} states compared"))
    });
}

/// Replays a depth charge's moves on the single-state machine and checks its report.
fn replay(
    p: &mut PropnetMachine,
    from: &PropnetState,
    charge: &propnet::runtime::Charge,
    max_steps: u32,
) -> Result<(), String> {
    let mut state = from.clone();
    let played = &charge.playout;
    if charge.moves.len() != played.length as usize {
        return Err(format!("{} joint moves recorded for length {}", charge.moves.len(), played.length));
    }
    for (step, joint) in charge.moves.iter().enumerate() {
        if p.is_terminal(&state).map_err(|e| e.to_string())? {
            return Err(format!("moved on from a terminal state at step {step}"));
        }
        state = p.next_state(&state, joint).map_err(|e| format!("step {step}: {e}"))?;
    }
    if state != played.final_state {
        return Err(format!("final state {:?}, replay reached {:?}", played.final_state, state));
    }
    let terminal = p.is_terminal(&state).map_err(|e| e.to_string())?;
    let ok = match played.end {
        PlayoutEnd::Terminal => terminal,
        PlayoutEnd::StepLimit => !terminal && played.length == max_steps,
        PlayoutEnd::NoLegalMove { role } => {
            !terminal
                && p.legal_moves(&state, role).map_err(|e| e.to_string())?.is_empty()
                && (0..role).all(|r| p.legal_moves(&state, r).is_ok_and(|l| !l.is_empty()))
        }
    };
    if !ok || (played.end != PlayoutEnd::StepLimit && played.length > max_steps) {
        return Err(format!("end {:?} after {} steps, terminal {terminal}", played.end, played.length));
    }
    let goals: Vec<Result<u32, MachineError>> = (0..p.roles().len()).map(|r| p.goal(&state, r)).collect();
    if goals != played.goals {
        return Err(format!("goals {:?}, replay gives {goals:?}", played.goals));
    }
    Ok(())
}

/// Replays a depth charge on the reasoner by printed moves; the printed final state and the goals
/// must agree.
fn replay_on_reasoner(r: &mut Reasoner, p: &PropnetMachine, charge: &propnet::runtime::Charge) -> Result<(), String> {
    let mut state = r.initial_state();
    for (step, joint) in charge.moves.iter().enumerate() {
        let mut rjoint = Vec::new();
        for (role, mv) in joint.iter().enumerate() {
            let name = p.format_move(mv);
            let legal = r.legal_moves(&state, role).map_err(|e| e.to_string())?;
            let m = legal.into_iter().find(|m| r.format_move(m) == name);
            rjoint.push(m.ok_or_else(|| format!("step {step}: {name} is not legal for the reasoner"))?);
        }
        state = r.next_state(&state, &rjoint).map_err(|e| e.to_string())?;
    }
    if r.state_props(&state) != p.state_props(&charge.playout.final_state) {
        return Err("the reasoner reaches another final state".into());
    }
    if charge.playout.end == PlayoutEnd::Terminal {
        let goals: Vec<Result<u32, MachineError>> = (0..r.roles().len()).map(|role| r.goal(&state, role)).collect();
        if goals != charge.playout.goals {
            return Err(format!("goals {:?}, the reasoner gives {goals:?}", charge.playout.goals));
        }
    }
    Ok(())
}

#[test]
fn depth_charges_replay_on_the_single_state_machine() {
    for_each_game("depth charges", |game, net| {
        let deadline = Instant::now() + BUDGET;
        let mut p = PropnetMachine::new(net);
        let mut single = PropnetMachine::from_program(Arc::clone(p.program()));
        let mut r = Reasoner::new(&game.desc);
        let initial = p.initial_state();
        let mut checked = 0;
        // 1,100 bit-sliced playouts: more than the widest marking's 1,024 lanes, so retired
        // lanes restart; 40 in one word of lanes. Then a few forward ones, and short ones that hit the
        // step limit.
        let runs = [
            (Strategy::BitSliced, 1100, 400),
            (Strategy::BitSliced, 40, 400),
            (Strategy::Forward, 6, 400),
            (Strategy::BitSliced, 10, 3),
        ];
        for (k, &(strategy, count, max_steps)) in runs.iter().enumerate() {
            p.set_strategy(strategy);
            let mut rng = SmallRng::seed_from_u64(k as u64 + 11);
            let charges = p.depth_charges(&initial, count, &mut rng, max_steps);
            if charges.len() != count as usize {
                return Err(format!("{strategy:?}: {} playouts for {count}", charges.len()));
            }
            for (i, charge) in charges.iter().enumerate() {
                if i > 0 && Instant::now() > deadline {
                    break;
                }
                replay(&mut single, &initial, charge, max_steps)
                    .map_err(|e| format!("{strategy:?} playout {i}: {e}"))?;
                if i < 2 {
                    replay_on_reasoner(&mut r, &p, charge).map_err(|e| format!("{strategy:?} playout {i}: {e}"))?;
                }
                checked += 1;
            }
        }
        // The statistics path agrees with itself.
        p.set_strategy(Strategy::BitSliced);
        let stats = p.run_playouts(100, 5, 500).map_err(|e| e.to_string())?;
        if stats.count != 100 || stats.terminal + stats.step_limit + stats.no_legal_move != 100 {
            return Err(format!("inconsistent statistics: {stats}"));
        }
        let again = p.run_playouts(100, 5, 500).map_err(|e| e.to_string())?;
        if (again.states, &again.average_goals) != (stats.states, &stats.average_goals) {
            return Err("run_playouts is not reproducible".into());
        }
        Ok(format!("{checked} playouts replayed, average length {:.1}", stats.average_length))
    });
}

#[test]
fn expansions_agree_with_one_state_at_a_time() {
    // A node's successors computed 64 joint moves a pass against next_state and is_terminal one
    // joint move at a time (itself checked against the reasoner in lockstep), along random
    // trajectories, with the single-state marking left wherever the last query put it.
    for_each_game("expansions", |_, net| {
        let deadline = Instant::now() + BUDGET;
        let mut p = PropnetMachine::new(net);
        let mut single = PropnetMachine::from_program(Arc::clone(p.program()));
        let initial = p.initial_state();
        let (mut nodes, mut successors) = (0, 0);
        for seed in 0..20 {
            if seed > 0 && Instant::now() > deadline {
                break;
            }
            let mut rng = SmallRng::seed_from_u64(seed);
            let states = machine::random_trajectory(&mut single, &initial, &mut rng, 200).map_err(|e| e.to_string())?;
            for (step, state) in states.iter().enumerate() {
                if single.is_terminal(state).map_err(|e| e.to_string())? {
                    break;
                }
                let joints = machine::perft::legal_joint_moves(&mut single, state).map_err(|e| e.to_string())?;
                if joints.total() > 4096 {
                    continue;
                }
                let batched = p.successors(state).map_err(|e| format!("step {step}: {e}"))?;
                let one =
                    machine::successors_one_by_one(&mut single, state).map_err(|e| format!("step {step}: {e}"))?;
                if batched != one {
                    let differ =
                        batched.iter().zip(&one).position(|(a, b)| a != b).unwrap_or(batched.len().min(one.len()));
                    return Err(format!(
                        "seed {seed} step {step}: {} successors batched, {} one at a time, first difference at {differ}",
                        batched.len(),
                        one.len()
                    ));
                }
                nodes += 1;
                successors += one.len();
            }
        }
        Ok(format!("{nodes} nodes expanded, {successors} successors compared"))
    });
}

#[test]
fn many_nodes_a_pass_count_the_paths_node_by_node_does() {
    // `count_paths` (the nodes on top of the stack side by side in a stepper's lanes) against
    // `perft_depth_first` (node by node, each node's successors checked above), depth after
    // depth while node by node takes at most 20,000 joint moves: every level's paths and
    // terminal paths, and the moves applied. Then a cap inside the deepest count stops both
    // after as many moves.
    for_each_game("paths", |_, net| {
        let deadline = Instant::now() + BUDGET;
        let mut fast = PropnetMachine::new(net);
        let mut slow = PropnetMachine::from_program(Arc::clone(fast.program()));
        let cap = machine::PerftLimits { max_expansions: Some(20_000), deadline: None };
        let mut deepest = (0, 0);
        for depth in 1..=12 {
            let want = machine::perft_depth_first(&mut slow, depth, &cap).map_err(|e| e.to_string())?;
            if want.cut.is_some() || (depth > 1 && Instant::now() > deadline) {
                break;
            }
            let got = fast.count_paths(depth, &machine::PerftLimits::default()).map_err(|e| e.to_string())?;
            if (&got.levels, got.applications, got.cut) != (&want.levels, want.applications, None) {
                return Err(format!("depth {depth}: {:?} node by node, {:?} many a pass", want.levels, got.levels));
            }
            deepest = (depth, want.applications);
        }
        let (depth, applications) = deepest;
        if applications > 1 {
            let limits = machine::PerftLimits { max_expansions: Some(applications / 2), deadline: None };
            let got = fast.count_paths(depth, &limits).map_err(|e| e.to_string())?;
            let counted: u128 = got.levels.iter().map(|l| l.paths).sum();
            if got.applications != applications / 2 || counted != u128::from(got.applications) || got.cut.is_none() {
                return Err(format!("capped at {}: {} applied, {counted} counted", applications / 2, got.applications));
            }
        }
        Ok(format!("paths agree to depth {depth} ({applications} joint moves)"))
    });
}

#[test]
fn next_state_rejects_illegal_moves_and_wrong_counts() {
    let Some(shared) = shared() else { return };
    let game = load(&testkit::shared::game(&shared, "ticTacToe").expect("ticTacToe"));
    let mut p = PropnetMachine::new(game.net.as_ref().expect("ticTacToe builds"));
    let s = p.initial_state();
    let x = p.legal_moves(&s, 0).expect("legal");
    let o = p.legal_moves(&s, 1).expect("legal");
    assert_eq!((x.len(), o.len()), (9, 1));
    assert!(matches!(p.next_state(&s, &[x[0]]), Err(MachineError::WrongMoveCount { expected: 2, got: 1 })));
    // O's noop is not X's move; X's mark is not O's; a mark on a filled cell is not legal.
    assert!(matches!(p.next_state(&s, &[o[0], o[0]]), Err(MachineError::IllegalMove { .. })));
    assert!(matches!(p.next_state(&s, &[x[0], x[1]]), Err(MachineError::IllegalMove { .. })));
    assert!(matches!(p.next_state(&s, &[x[0], 10_000]), Err(MachineError::IllegalMove { .. })));
    let t = p.next_state(&s, &[x[0], o[0]]).expect("legal joint move");
    let o2 = p.legal_moves(&t, 1).expect("legal");
    let x2 = p.legal_moves(&t, 0).expect("legal");
    assert_eq!((x2.len(), o2.len()), (1, 8));
    assert!(!o2.contains(&o2[0].wrapping_add(0)) || !o2.iter().any(|m| p.format_move(m) == p.format_move(&x[0])));
    assert!(p.next_state(&t, &[x2[0], o2[0]]).is_ok());
    // States are portable between machines built from the same program.
    let mut q = PropnetMachine::from_program(Arc::clone(p.program()));
    assert_eq!(q.legal_moves(&t, 1).expect("legal"), o2);
    assert_eq!(p.state_props(&t), q.state_props(&t));
    let props = p.state_props(&t);
    assert!(props.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()), "{props:?}");
}

#[test]
fn a_stepper_walks_games_as_the_single_state_machine_does() {
    // A stepper loaded once walks random games on its own, a role with a choice expanding its
    // moves (64 a pass) and the lane of the move drawn chosen: at every step every candidate's
    // successor, terminal flag, legal moves and (where it ended) goals and score equal
    // next_state's, is_terminal's, legal_moves', goal_values' and goal's on the single-state
    // machine.
    for_each_game("stepper", |_, net| {
        let deadline = Instant::now() + BUDGET;
        let mut single = PropnetMachine::new(net);
        let Some(mut stepper) = propnet::Stepper::new(Arc::clone(single.program())) else {
            return Ok("legal or goal outputs read the moves: no stepper".into());
        };
        let initial = single.initial_state();
        let roles = single.roles().len();
        let (mut steps, mut compared) = (0, 0);
        let mut moves = Vec::new();
        for seed in 0..20u64 {
            if seed > 0 && Instant::now() > deadline {
                break;
            }
            let mut rng = SmallRng::seed_from_u64(seed);
            stepper.load(&initial);
            let mut state = initial.clone();
            for step in 0..MAX_STEPS {
                let at = |what: &str| format!("seed {seed} step {step}: {what}");
                let terminal = single.is_terminal(&state).map_err(|e| e.to_string())?;
                if (stepper.terminal() & 1 == 1) != terminal {
                    return Err(at("terminal differs"));
                }
                if terminal {
                    break;
                }
                let mut legal = Vec::with_capacity(roles);
                for r in 0..roles {
                    let l = single.legal_moves(&state, r).map_err(|e| e.to_string())?;
                    stepper.legal_moves(0, r, &mut moves);
                    if moves != l {
                        return Err(at(&format!("role {r}'s legal moves differ")));
                    }
                    legal.push(l);
                }
                if legal.iter().any(Vec::is_empty) {
                    break;
                }
                // The mover: the first role with a choice (or the first role), its candidates
                // the first 64 of its moves.
                let role = (0..roles).find(|&r| legal[r].len() > 1).unwrap_or(0);
                let mut joint: Vec<u32> = legal.iter().map(|l| l[pick(rng.next_u64(), 0, l.len())]).collect();
                let candidates: Vec<u32> = legal[role].iter().copied().take(64).collect();
                stepper.expand(&joint, role, &candidates);
                let terminals = stepper.terminal();
                if terminals != 0 {
                    stepper.refresh_goals();
                }
                for (k, &c) in candidates.iter().enumerate() {
                    joint[role] = c;
                    let next = single.next_state(&state, &joint).map_err(|e| e.to_string())?;
                    same_lane(&stepper, &mut single, k, &next, &mut moves)
                        .map_err(|e| at(&format!("candidate {k}: {e}")))?;
                    compared += 1;
                }
                let k = pick(rng.next_u64(), role, candidates.len());
                joint[role] = candidates[k];
                stepper.choose(k);
                state = single.next_state(&state, &joint).map_err(|e| e.to_string())?;
                steps += 1;
            }
        }
        Ok(format!("{steps} steps, {compared} successors compared"))
    });
}

/// Whether lane `lane` of `stepper` (its goals refreshed where a lane is terminal) holds `next`
/// as the single-state machine sees it: the state, terminal flag, each role's legal moves and,
/// where it ended, goal values and score.
fn same_lane(
    stepper: &propnet::Stepper,
    single: &mut PropnetMachine,
    lane: usize,
    next: &PropnetState,
    moves: &mut Vec<u32>,
) -> Result<(), String> {
    if stepper.state(lane) != *next {
        return Err("the successor differs".into());
    }
    let ended = single.is_terminal(next).map_err(|e| e.to_string())?;
    if (stepper.terminal() >> lane & 1 == 1) != ended {
        return Err("the terminal flag differs".into());
    }
    for r in 0..single.roles().len() {
        stepper.legal_moves(lane, r, moves);
        if *moves != single.legal_moves(next, r).map_err(|e| e.to_string())? {
            return Err(format!("role {r}'s legal moves differ"));
        }
        if ended && stepper.goal_values(lane, r) != single.goal_values(next, r).map_err(|e| e.to_string())? {
            return Err(format!("role {r}'s goals differ"));
        }
        if ended && stepper.score(lane, r) != machine::played_score(&single.goal(next, r)) {
            return Err(format!("role {r}'s score differs"));
        }
    }
    Ok(())
}

#[test]
fn a_stepper_walks_games_side_by_side_as_the_single_state_machine_does() {
    // Groups of 4 to 32 lanes each walk a random game of their own from a state a few random
    // moves in: every step each group's mover has its first candidates (as many as the group has
    // lanes) staged, one pass expands them all, and a lane drawn in each group becomes the
    // group's state. Every candidate's lane holds what the single-state machine gives.
    for_each_game("stepper groups", |_, net| {
        let deadline = Instant::now() + BUDGET;
        let mut single = PropnetMachine::new(net);
        let Some(mut stepper) = propnet::Stepper::new(Arc::clone(single.program())) else {
            return Ok("legal or goal outputs read the moves: no stepper".into());
        };
        let initial = single.initial_state();
        let roles = single.roles().len();
        let (mut steps, mut compared) = (0, 0);
        let mut moves = Vec::new();
        // A joint move of random legal moves in `state` (one role's drawn by `choice`), unless
        // it is over.
        let draw = |single: &mut PropnetMachine, state: &PropnetState, choice: u64| -> Result<_, String> {
            if single.is_terminal(state).map_err(|e| e.to_string())? {
                return Ok(None);
            }
            let legal: Vec<Vec<u32>> = (0..roles)
                .map(|r| single.legal_moves(state, r))
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            if legal.iter().any(Vec::is_empty) {
                return Ok(None);
            }
            let joint: Vec<u32> = legal.iter().enumerate().map(|(r, l)| l[pick(choice, r, l.len())]).collect();
            Ok(Some((joint, legal)))
        };
        for seed in 0..16u64 {
            if seed > 0 && Instant::now() > deadline {
                break;
            }
            let mut rng = SmallRng::seed_from_u64(seed);
            let width = 4 << (seed % 4);
            let groups = 64 / width;
            let mut states = Vec::with_capacity(groups);
            for g in 0..groups {
                let mut state = initial.clone();
                for _ in 0..rng.next_u64() % 8 {
                    let Some((joint, _)) = draw(&mut single, &state, rng.next_u64())? else { break };
                    state = single.next_state(&state, &joint).map_err(|e| e.to_string())?;
                }
                stepper.load_group(width, g, &state);
                states.push(Some(state));
            }
            stepper.settle();
            for step in 0..MAX_STEPS {
                let at = |g: usize, what: &str| format!("seed {seed} step {step} group {g}: {what}");
                let mut staged = vec![None; groups];
                for (g, slot) in states.iter_mut().enumerate() {
                    let Some(state) = slot.as_ref() else { continue };
                    let first = g * width;
                    let terminal = single.is_terminal(state).map_err(|e| e.to_string())?;
                    if (stepper.terminal() >> first & 1 == 1) != terminal {
                        return Err(at(g, "terminal differs"));
                    }
                    let Some((joint, legal)) = draw(&mut single, state, rng.next_u64())? else {
                        *slot = None;
                        continue;
                    };
                    for (r, l) in legal.iter().enumerate() {
                        stepper.legal_moves(first, r, &mut moves);
                        if moves != *l {
                            return Err(at(g, &format!("role {r}'s legal moves differ")));
                        }
                    }
                    let role = (0..roles).find(|&r| legal[r].len() > 1).unwrap_or(0);
                    let candidates: Vec<u32> = legal[role].iter().copied().take(width).collect();
                    stepper.stage(width, g, &joint, role, &candidates);
                    staged[g] = Some((joint, role, candidates));
                }
                if staged.iter().all(Option::is_none) {
                    break;
                }
                stepper.advance();
                if stepper.terminal() != 0 {
                    stepper.refresh_goals();
                }
                let mut chosen = 0u64;
                for (g, expansion) in staged.into_iter().enumerate() {
                    let Some((mut joint, role, candidates)) = expansion else { continue };
                    let state = states[g].take().expect("a group staged holds a state");
                    let mut nexts = Vec::with_capacity(candidates.len());
                    for (k, &c) in candidates.iter().enumerate() {
                        joint[role] = c;
                        let next = single.next_state(&state, &joint).map_err(|e| e.to_string())?;
                        same_lane(&stepper, &mut single, g * width + k, &next, &mut moves)
                            .map_err(|e| at(g, &format!("candidate {k}: {e}")))?;
                        nexts.push(next);
                        compared += 1;
                    }
                    let k = pick(rng.next_u64(), role, candidates.len());
                    chosen |= 1 << (g * width + k);
                    states[g] = Some(nexts.swap_remove(k));
                }
                stepper.choose_groups(width, chosen);
                steps += 1;
            }
        }
        Ok(format!("{steps} group steps, {compared} successors compared"))
    });
}
