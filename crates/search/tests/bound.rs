//! The bound never overestimates: on games small enough to explore completely, it is compared
//! at every reachable state with the true number of moves to a terminal state with each goal
//! value (breadth-first search over the whole state graph), and the solver's plans must be
//! exactly as short as those distances say.

mod common;

use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use rustc_hash::FxHashMap;
use search::{Bound, UNREACHABLE};

/// Games with more reachable states than this are left out.
const MAX_STATES: usize = 20_000;

/// Every state reachable from the initial one, with its successors and, if terminal, its score.
struct Graph {
    states: Vec<PropnetState>,
    succ: Vec<Vec<u32>>,
    score: Vec<Option<u32>>,
}

fn explore(net: &Net) -> Option<Graph> {
    let mut m = PropnetMachine::new(net);
    let root = m.initial_state();
    let mut index: FxHashMap<PropnetState, u32> = FxHashMap::from_iter([(root.clone(), 0)]);
    let mut g = Graph { states: vec![root], succ: Vec::new(), score: Vec::new() };
    while g.succ.len() < g.states.len() {
        let state = g.states[g.succ.len()].clone();
        let mut succ = Vec::new();
        let terminal = m.is_terminal(&state).expect("terminal");
        g.score.push(terminal.then(|| m.goal(&state, 0).expect("goal")));
        if !terminal {
            for mv in m.legal_moves(&state, 0).expect("legal") {
                let next = m.next_state(&state, &[mv]).expect("next");
                let id = *index.entry(next.clone()).or_insert_with(|| {
                    g.states.push(next);
                    (g.states.len() - 1) as u32
                });
                succ.push(id);
            }
        }
        g.succ.push(succ);
        if g.states.len() > MAX_STATES {
            return None;
        }
    }
    Some(g)
}

/// The fewest moves from each state to a terminal state scoring `value`.
fn distances(g: &Graph, value: u32) -> Vec<u32> {
    let mut back = vec![Vec::new(); g.states.len()];
    for (from, succ) in g.succ.iter().enumerate() {
        succ.iter().for_each(|&to| back[to as usize].push(from));
    }
    let mut dist = vec![UNREACHABLE; g.states.len()];
    let mut frontier: Vec<usize> = (0..g.states.len()).filter(|&s| g.score[s] == Some(value)).collect();
    frontier.iter().for_each(|&s| dist[s] = 0);
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for s in frontier {
            for &p in &back[s] {
                if dist[p] == UNREACHABLE {
                    dist[p] = d;
                    next.push(p);
                }
            }
        }
        frontier = next;
    }
    dist
}

/// Checks the bound at every reachable state and the solver's result against the true
/// distances; `None` if the game is too large to explore. Returns the states checked.
fn check(name: &str, desc: &gdl::Description, net: &Net) -> Option<usize> {
    let g = explore(net)?;
    let mut bound = Bound::new(net, &g.states[0], None);
    let mut values: Vec<u32> = net.goals[0].iter().map(|&(v, _)| v).collect();
    values.sort_unstable_by(|a, b| b.cmp(a));
    values.dedup();
    let mut best = None;
    for &value in &values {
        bound.target(value);
        let dist = distances(&g, value);
        for (s, state) in g.states.iter().enumerate() {
            // The search asks only about non-terminal states and the terminal states it seeks.
            if g.score[s].is_none() || g.score[s] == Some(value) {
                let estimate = bound.estimate(state);
                assert!(estimate <= dist[s], "{name}: bound {estimate} > {} moves to {value} in {state:?}", dist[s]);
            }
        }
        if best.is_none() && dist[0] != UNREACHABLE {
            best = Some((value, dist[0]));
        }
    }
    let solution = search::solve(net, search::SolveConfig::default()).expect("solves");
    let (value, moves) = best.expect("some goal value is reachable");
    assert!(solution.optimal, "{name}");
    assert_eq!((solution.score, solution.plan.len() as u32), (Some(value), moves), "{name}");
    assert_eq!(common::replay(desc, &solution.plan), Some(value), "{name}: {:?}", solution.plan);
    Some(g.states.len())
}

#[test]
fn the_bound_never_exceeds_the_true_distance_in_small_bundled_games() {
    for name in ["buttonsandlights", "untwistycorridor"] {
        let (desc, net) = common::bundled(name);
        assert!(check(name, &desc, &net).is_some(), "{name} is small");
    }
}

#[test]
fn the_bound_never_exceeds_the_true_distance_in_a_short_sliding_puzzle() {
    // The bundled 8-puzzle's rules from a start 8 moves from solved, with a 12-move limit:
    // small enough to explore, with states that can and cannot still make it in time.
    let game = games::find("eightpuzzle").expect("bundled");
    let board = ["1", "5", "2", "4", "b", "8", "7", "6", "3"];
    let mut text: String = game.text.lines().filter(|l| !l.starts_with("(init (cell")).collect::<Vec<_>>().join("\n");
    for (i, tile) in board.iter().enumerate() {
        text.push_str(&format!("\n(init (cell {} {} {tile}))", i / 3 + 1, i % 3 + 1));
    }
    let text = text.replace("(true (step 40))", "(true (step 12))");
    let (desc, net) = common::load("short.kif", &text);
    let states = check("short 8-puzzle", &desc, &net.expect("builds"));
    assert!(states.is_some_and(|n| n > 1_000), "{states:?}");
}

#[test]
fn the_eight_puzzle_bound_adds_up_the_tiles_but_not_the_blank() {
    let (_, net) = common::bundled("eightpuzzle");
    let mut m = PropnetMachine::new(&net);
    let mut bound = Bound::new(&net, &m.initial_state(), None);
    bound.target(100);
    // One projection per tile, one for the blank, one for the step counter; a move changes the
    // blank and one tile, so only the eight tiles can be added up.
    assert_eq!(bound.sizes(), (10, 8));
    // The start's Manhattan distance is 16 and it needs 20 moves.
    assert!((16..=20).contains(&bound.estimate(&m.initial_state())));
}

#[test]
fn the_bound_never_exceeds_the_true_distance_in_small_corpus_games() {
    let puzzles = common::corpus_puzzles("the bound on corpus games");
    let mut checked = Vec::new();
    for (file, desc, net) in &puzzles {
        if check(file, desc, net).is_some() {
            checked.push(file);
        }
    }
    // Without the corpus there is nothing to check (the helper has warned).
    assert!(puzzles.is_empty() || checked.len() >= 5, "only {checked:?} were small enough");
}
