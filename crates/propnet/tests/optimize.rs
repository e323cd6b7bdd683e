//! Differential tests of `propnet::optimize`: the optimised net must compute the same outputs as
//! the unoptimised one. Passes fold/prune/collapse/merge/flatten are equivalences, checked on
//! arbitrary random markings; the full optimisation (with pass reach) is checked on states and
//! legal joint moves reached by random playouts.
//!
//! Run with `cargo test --release -p propnet --test optimize`; `-- --ignored --nocapture` prints a
//! size and timing report over every corpus game, big ones included (`GAME=name` for one game,
//! `VERBOSE=1` for per-pass statistics).

use propnet::optimize::{optimize, optimize_with, OptimizeStats, Passes};
use propnet::Net;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Nets larger than this (unoptimised) are not checked.
const MAX_NODES: usize = 150_000;

/// Node evaluations to spend per game and check, roughly (keeps the whole file under ~30 s).
const BUDGET: usize = 5_000_000;

/// Every output of a net for one evaluation: each base's next, each move's legality, each goal,
/// terminal; plus each base's init.
fn outputs(net: &Net, values: &[bool]) -> Vec<bool> {
    let mut out: Vec<bool> = net.bases.iter().map(|b| values[b.next as usize]).collect();
    out.extend(net.bases.iter().map(|b| b.init));
    out.extend(net.moves.iter().map(|m| values[m.legal as usize]));
    out.extend(net.goals.iter().flatten().map(|&(_, g)| values[g as usize]));
    out.push(values[net.terminal as usize]);
    out
}

/// The name of output `k` of [`outputs`], for failure messages.
fn output_name(net: &Net, k: usize) -> String {
    let nb = net.bases.len();
    let nm = net.moves.len();
    let goals: Vec<(usize, u32)> =
        net.goals.iter().enumerate().flat_map(|(r, gs)| gs.iter().map(move |&(v, _)| (r, v))).collect();
    if k < nb {
        format!("next {}", net.bases[k].name)
    } else if k < 2 * nb {
        format!("init {}", net.bases[k - nb].name)
    } else if k < 2 * nb + nm {
        let m = &net.moves[k - 2 * nb];
        format!("legal {} {}", net.roles[m.role], m.name)
    } else if k < 2 * nb + nm + goals.len() {
        let (r, v) = goals[k - 2 * nb - nm];
        format!("goal {} {v}", net.roles[r])
    } else {
        "terminal".to_string()
    }
}

/// The two nets must have the same interface (bases, moves, goals in the same order).
fn same_interface(a: &Net, b: &Net) {
    assert_eq!(a.roles, b.roles);
    assert_eq!(a.bases.len(), b.bases.len());
    for (x, y) in a.bases.iter().zip(&b.bases) {
        assert_eq!((&x.name, x.init), (&y.name, y.init));
        assert_eq!(b.kinds[y.node as usize], propnet::Kind::Base(b.bases.iter().position(|z| z == y).unwrap() as u32));
    }
    assert_eq!(a.moves.len(), b.moves.len());
    for (j, (x, y)) in a.moves.iter().zip(&b.moves).enumerate() {
        assert_eq!((&x.name, x.role), (&y.name, y.role));
        assert_eq!(b.kinds[y.node as usize], propnet::Kind::Input(j as u32));
    }
    let goal_values =
        |n: &Net| n.goals.iter().map(|g| g.iter().map(|&(v, _)| v).collect::<Vec<_>>()).collect::<Vec<_>>();
    assert_eq!(goal_values(a), goal_values(b));
    for n in 0..b.kinds.len() {
        let ok = match b.kinds[n] {
            propnet::Kind::Not => b.inputs[n].len() == 1,
            propnet::Kind::And | propnet::Kind::Or => true,
            _ => b.inputs[n].is_empty(),
        };
        assert!(ok, "malformed node {n}: {:?} {:?}", b.kinds[n], b.inputs[n]);
    }
}

/// Evaluates both nets on one marking and panics with the first difference.
fn agree(game: &str, what: &str, a: &Net, b: &Net, base: &[bool], input: &[bool]) {
    let va = outputs(a, &a.evaluate(base, input));
    let vb = outputs(b, &b.evaluate(base, input));
    if let Some(k) = (0..va.len()).find(|&k| va[k] != vb[k]) {
        let on = |v: &[bool], names: &dyn Fn(usize) -> String| {
            v.iter().enumerate().filter(|(_, &t)| t).map(|(i, _)| names(i)).collect::<Vec<_>>().join(" ")
        };
        panic!(
            "{game} ({what}): {} is {} unoptimised, {} optimised\n  state: {}\n  moves: {}",
            output_name(a, k),
            va[k],
            vb[k],
            on(base, &|i| a.bases[i].name.clone()),
            on(input, &|j| format!("{}:{}", a.roles[a.moves[j].role], a.moves[j].name))
        );
    }
}

/// A random marking in which each proposition holds with a random density.
fn random_marking(rng: &mut SmallRng, n: usize) -> Vec<bool> {
    let p: f64 = [0.02, 0.1, 0.3, 0.5, 0.8][rng.random_range(0..5)];
    (0..n).map(|_| rng.random_bool(p)).collect()
}

/// One move per role, chosen among all of them (legal or not).
fn one_move_each(rng: &mut SmallRng, net: &Net) -> Vec<bool> {
    let mut input = vec![false; net.moves.len()];
    for r in 0..net.roles.len() {
        let ms: Vec<usize> = (0..net.moves.len()).filter(|&j| net.moves[j].role == r).collect();
        if !ms.is_empty() {
            input[ms[rng.random_range(0..ms.len())]] = true;
        }
    }
    input
}

/// The equivalence passes, on `markings` arbitrary base and input markings.
fn check_markings(game: &str, a: &Net, b: &Net, markings: usize, rng: &mut SmallRng) {
    let zeros = vec![false; a.moves.len()];
    for k in 0..markings {
        let base = random_marking(rng, a.bases.len());
        let input = match k % 3 {
            0 => zeros.clone(),
            1 => one_move_each(rng, a),
            _ => random_marking(rng, a.moves.len()),
        };
        agree(game, "random marking", a, b, &base, &input);
    }
}

/// Random playouts in the unoptimised net, comparing every state (with no move and with the chosen
/// legal joint move). Returns the number of states visited.
fn check_playouts(game: &str, a: &Net, b: &Net, max_states: usize, rng: &mut SmallRng) -> usize {
    let zeros = vec![false; a.moves.len()];
    let mut visited = 0;
    while visited < max_states {
        let mut state: Vec<bool> = a.bases.iter().map(|x| x.init).collect();
        for _ in 0..300 {
            visited += 1;
            agree(game, "reachable state", a, b, &state, &zeros);
            let v = a.evaluate(&state, &zeros);
            if v[a.terminal as usize] || visited >= max_states {
                break;
            }
            let mut input = zeros.clone();
            let mut stuck = false;
            for r in 0..a.roles.len() {
                let legal: Vec<usize> =
                    (0..a.moves.len()).filter(|&j| a.moves[j].role == r && v[a.moves[j].legal as usize]).collect();
                if legal.is_empty() {
                    stuck = true;
                    break;
                }
                input[legal[rng.random_range(0..legal.len())]] = true;
            }
            if stuck {
                break;
            }
            agree(game, "reachable state and legal joint move", a, b, &state, &input);
            let v = a.evaluate(&state, &input);
            state = a.bases.iter().map(|x| v[x.next as usize]).collect();
        }
    }
    visited
}

/// Builds, optimises both ways and checks one game.
fn check_game(game: &str, net: &Net, seed: u64) -> OptimizeStats {
    let exact = Passes { reachability: false, ..Passes::default() };
    let (eq, _) = optimize_with(net, &exact);
    let (full, stats) = optimize(net);
    same_interface(net, &eq);
    same_interface(net, &full);
    // Idempotence of the interface and no growth on a second run.
    let (again, _) = optimize(&full);
    assert!(again.kinds.len() <= full.kinds.len(), "{game}: second optimisation grew the net");

    let mut rng = SmallRng::seed_from_u64(seed);
    let n = net.kinds.len();
    let per_eval = n + full.kinds.len().max(eq.kinds.len());
    let markings = (BUDGET / 2 / per_eval).clamp(10, 300);
    check_markings(game, net, &eq, markings, &mut rng);
    let states = (BUDGET / 2 / (2 * per_eval)).clamp(10, 400);
    check_playouts(game, net, &full, states, &mut rng);
    check_playouts(game, &eq, &full, states / 4, &mut rng);
    stats
}

fn load(name: &str, text: &str) -> gdl::Description {
    gdl::load(name, text).unwrap_or_else(|e| panic!("{name}: {e:?}")).0
}

#[test]
fn bundled_games() {
    for g in games::ALL {
        let desc = load(g.file, g.text);
        let net = propnet::build(&desc, &propnet::Limits::default()).unwrap();
        let stats = check_game(g.name, &net, 7);
        eprintln!("{:20} {} -> {} nodes", g.name, stats.before.nodes, stats.after.nodes);
    }
}

/// Every corpus game, if the corpus is there.
fn corpus() -> Option<Vec<PathBuf>> {
    testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "optimisation of the corpus games")
        .map(|d| testkit::shared::games_with_propnet(&d))
}

fn read_game(f: &Path) -> (String, gdl::Description) {
    let name = f.file_stem().unwrap().to_string_lossy().into_owned();
    let text = testkit::shared::read_text(f).expect("readable game");
    let desc = load(&name, &text);
    (name, desc)
}

#[test]
fn corpus_games() {
    let Some(files) = corpus() else { return };
    let start = Instant::now();
    let mut checked = 0;
    for f in files {
        let (name, desc) = read_game(&f);
        // Caps that make the grounder give up early on nets far over the size limit.
        let limits = propnet::Limits {
            max_atoms: MAX_NODES,
            max_rules: 2 * MAX_NODES,
            max_literals: 8 * MAX_NODES,
            deadline: Some(Instant::now() + Duration::from_millis(1500)),
        };
        let t = Instant::now();
        let net = match propnet::build(&desc, &limits) {
            Ok(net) if net.kinds.len() <= MAX_NODES => net,
            Ok(net) => {
                eprintln!("{name:28} skipped: {} nodes ({:.2} s)", net.kinds.len(), t.elapsed().as_secs_f64());
                continue;
            }
            Err(e) => {
                eprintln!("{name:28} skipped: {e} ({:.2} s)", t.elapsed().as_secs_f64());
                continue;
            }
        };
        let t = Instant::now();
        let stats = check_game(&name, &net, 11);
        checked += 1;
        eprintln!(
            "{name:28} {:>7} -> {:>6} nodes, {:>7} -> {:>6} edges, optimised in {:>7.2} ms, checked in {:>6.2} s",
            stats.before.nodes,
            stats.after.nodes,
            stats.before.edges,
            stats.after.edges,
            stats.micros as f64 / 1000.0,
            t.elapsed().as_secs_f64()
        );
    }
    eprintln!("{checked} corpus games checked in {:.1} s", start.elapsed().as_secs_f64());
    assert!(checked >= 30, "only {checked} corpus games checked");
}

/// Sizes and times for every corpus game, big ones included (slow: builds everything).
#[test]
#[ignore]
fn corpus_report() {
    let Some(files) = corpus() else { return };
    let mut build_total = 0.0;
    let mut opt_total = 0.0;
    let only = std::env::var("GAME").ok();
    for f in files {
        let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned());
        if only.is_some() && stem != only {
            continue;
        }
        let (name, desc) = read_game(&f);
        let t = Instant::now();
        let net = match propnet::build(&desc, &propnet::Limits::default()) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("{name:28} build failed: {e}");
                continue;
            }
        };
        let built = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (opt, stats) = optimize(&net);
        let took = t.elapsed().as_secs_f64();
        let (eq, _) = optimize_with(&net, &Passes { reachability: false, ..Passes::default() });
        build_total += built;
        opt_total += took;
        eprintln!(
            "{name:28} build {built:>7.3}s  optimise {took:>7.3}s  nodes {:>8} -> {:>7} (exact {:>7})  edges {:>8} -> {:>7}",
            net.kinds.len(),
            opt.kinds.len(),
            eq.kinds.len(),
            stats.before.edges,
            stats.after.edges
        );
        if std::env::var_os("VERBOSE").is_some() {
            eprintln!("{stats}");
        }
    }
    eprintln!("build total {build_total:.2}s, optimise total {opt_total:.2}s");
}
