//! MCTS on the bundled games and, briefly, on every corpus game whose propnet builds.

use super::*;
use analysis::GoalLatches;
use machine::StateMachine;
use metagame::playout::{Cutoff, Lookahead, Settings};
use metagame::Pieces;
use propnet::{Net, PropnetState};
use std::time::Duration;

/// The optimised net of a bundled game.
fn net(name: &str) -> Net {
    testkit::bundled(name).1
}

/// `net`'s goal latches from its structural and exact latches.
fn goal_latches(net: &Net) -> GoalLatches {
    let mut latches = analysis::structural_latches(net);
    latches.extend(analysis::exact_latches(net, 16, &[]));
    GoalLatches::new(net, &latches, None)
}

/// The knowledge of `net`'s goal latches.
fn knowledge(net: &Net) -> Arc<Knowledge> {
    Arc::new(Knowledge::new(net, goal_latches(net), false))
}

/// `net`'s knowledge of goal latches, with the tactics if asked, and the roles' pieces that random
/// games find.
fn piece_guide(net: &Net, tactics: bool) -> Knowledge {
    let pieces = Pieces::discover(net, Instant::now() + Duration::from_secs(30), 1).expect("pieces");
    Knowledge::new(net, goal_latches(net), tactics).with_pieces(net, pieces)
}

/// One thread, a fixed seed, the given pool size.
fn config(max_nodes: usize) -> MctsConfig {
    MctsConfig { threads: 1, seed: 7, max_nodes, ..MctsConfig::default() }
}

/// A machine for `net` and the state reached by playing `moves` (one printed move per role per
/// step) from the initial state.
fn position(net: &Net, moves: &[[&str; 2]]) -> (PropnetMachine, PropnetState) {
    let mut m = PropnetMachine::new(net);
    let mut state = m.initial_state();
    for step in moves {
        let joint: Vec<u32> = step.iter().enumerate().map(|(r, mv)| m.find_move(r, mv).expect("a move")).collect();
        state = m.next_state(&state, &joint).expect("legal");
    }
    (m, state)
}

/// A machine for `net` and an MCTS with `knowledge` moved (by `advance`) to the state after `moves`.
fn search_from(
    net: &Net,
    moves: &[[&str; 2]],
    knowledge: Option<Arc<Knowledge>>,
    config: MctsConfig,
) -> (PropnetMachine, Mcts) {
    let (m, state) = position(net, moves);
    let mut mcts = Mcts::new(Arc::new(Program::new(net)), knowledge, config).expect("starts");
    for step in moves {
        let joint: Vec<u32> = step.iter().enumerate().map(|(r, mv)| m.find_move(r, mv).expect("a move")).collect();
        mcts.advance(&joint).expect("legal");
    }
    assert_eq!(mcts.root_state(), &state);
    (m, mcts)
}

#[test]
fn tictactoe_takes_the_immediate_win_and_proves_it() {
    let net = net("tictactoe");
    // x has (1 1) and (1 2), o has (2 1) and (2 2): both threaten, x is to move.
    let moves = [["(mark 1 1)", "noop"], ["noop", "(mark 2 1)"], ["(mark 1 2)", "noop"], ["noop", "(mark 2 2)"]];
    let (m, mut mcts) = search_from(&net, &moves, None, config(10_000));
    let stats = mcts.search_iterations(2_000).expect("searches");
    assert_eq!(mcts.best_move(0), m.find_move(0, "(mark 1 3)"));
    assert_eq!(stats.proven, Some(vec![100, 0]));
    assert_eq!(stats.proven_depth, Some(1));
    assert!(stats.iterations < 2_000, "a proven root ends the search early");
}

#[test]
fn the_reasoner_searches_like_the_propnet() {
    let game = games::find("tictactoe").expect("bundled game");
    let (desc, _) = gdl::load(game.file, game.text).expect("valid");
    // Two threads asked for: the reasoner's states are its own, so it searches on one.
    let config = MctsConfig { threads: 2, ..config(10_000) };
    let mut mcts = Mcts::on(reasoner::Reasoner::new(&desc), None, config).expect("starts");
    let moves = [["(mark 1 1)", "noop"], ["noop", "(mark 2 1)"], ["(mark 1 2)", "noop"], ["noop", "(mark 2 2)"]];
    for step in moves {
        let joint: Vec<_> = step.iter().enumerate().map(|(r, name)| mcts.root_move(r, name).expect("legal")).collect();
        mcts.advance(&joint).expect("legal");
    }
    let stats = mcts.search_iterations(2_000).expect("searches");
    let best = mcts.best_move(0).expect("a move");
    assert_eq!(mcts.machine().format_move(&best), "(mark 1 3)");
    assert_eq!(stats.proven, Some(vec![100, 0]));
    assert!(stats.playouts > 0);
}

#[test]
fn tictactoe_blocks_the_immediate_loss() {
    let net = net("tictactoe");
    // x threatens (1 3); o has nothing of its own.
    let moves = [["(mark 1 1)", "noop"], ["noop", "(mark 2 2)"], ["(mark 1 2)", "noop"]];
    let (m, mut mcts) = search_from(&net, &moves, None, config(100_000));
    mcts.search_iterations(20_000).expect("searches");
    assert_eq!(mcts.best_move(1), m.find_move(1, "(mark 1 3)"));
    assert_eq!(mcts.best_move(0), m.find_move(0, "noop"));
    // Every other move loses at once, and the solver knows it.
    let lost = mcts.move_stats(1).iter().filter(|s| s.proven == Some(0)).count();
    assert!(lost >= 5, "only {lost} losing moves proven");
}

#[test]
fn move_averages_learn_that_the_centre_is_best_and_leave_the_proof_sound() {
    let net = net("tictactoe");
    let tactics = Arc::new(Knowledge::new(&net, GoalLatches::new(&net, &[], None), true));
    // Bit-sliced and guided playouts, on one thread and on workers.
    for (knowledge, threads) in [(None, 1), (None, 2), (Some(tactics), 1)] {
        let config = MctsConfig { threads, mast: 0.6, ..config(200_000) };
        let mut mcts = Mcts::new(Arc::new(Program::new(&net)), knowledge.clone(), config).expect("starts");
        let stats = mcts.search_iterations(50_000).expect("searches");
        let guided = knowledge.is_some();
        assert_eq!(stats.proven, Some(vec![50, 50]), "guided {guided}, {threads} threads");
        let m = mcts.machine();
        let mean = |name: &str| mcts.move_average(&m.find_move(0, name).expect("a move")).expect("played");
        // The centre lies on four lines, an edge on two.
        assert!(mean("(mark 2 2)") > mean("(mark 1 2)"), "guided {guided}, {threads} threads");
    }
    let plain = Mcts::new(Arc::new(Program::new(&net)), None, config(1_000)).expect("starts");
    assert_eq!(plain.move_average(&0), None, "no averages unless asked for");
}

#[test]
fn all_moves_as_first_statistics_count_every_move_played_at_or_after_a_node() {
    let net = net("tictactoe");
    let tactics = Arc::new(Knowledge::new(&net, GoalLatches::new(&net, &[], None), true));
    // Bit-sliced and guided playouts, on one thread and on workers.
    for (knowledge, threads) in [(None, 1), (None, 2), (Some(tactics), 1)] {
        let guided = knowledge.is_some();
        let config = MctsConfig { threads, rave: 0.05, ..config(200_000) };
        let mut mcts = Mcts::new(Arc::new(Program::new(&net)), knowledge, config).expect("starts");
        mcts.search_iterations(2_000).expect("searches");
        let root = mcts.root_node();
        assert_eq!(root.kind, Kind::Mover(0));
        let count = root.move_count(0);
        assert_eq!(root.amaf.len(), count);
        let (mut own, mut all) = (0, 0);
        for i in 0..count {
            let (edge, amaf) = (root.edge(0, i), root.amaf[i]);
            // Every iteration that chose the move counts it, and so do those that played it later.
            assert!(amaf.visits >= edge.visits, "move {i}: {amaf:?} against {edge:?}, guided {guided}");
            assert!(amaf.visits <= root.visits);
            let mean = amaf.mean().expect("played");
            assert!((0.0..=100.0).contains(&mean));
            (own, all) = (own + edge.visits, all + amaf.visits);
        }
        // x makes three or four more marks after its first in most games.
        assert!(all > 3 * own, "{all} samples over {own} visits, guided {guided}, {threads} threads");
        let m = mcts.machine();
        let mean = |name: &str| {
            let i = (0..count).find(|&i| root.role_move(0, i) == m.find_move(0, name).expect("a move"));
            root.amaf[i.expect("legal")].mean().expect("played")
        };
        // The centre lies on four lines, an edge on two: x wins more of the games it takes it in.
        assert!(mean("(mark 2 2)") > mean("(mark 1 2)"), "guided {guided}, {threads} threads");
    }
    let plain = Mcts::new(Arc::new(Program::new(&net)), None, config(1_000)).expect("starts");
    assert!(plain.root_node().amaf.is_empty(), "no statistics unless asked for");
}

#[test]
fn tictactoe_is_solved_as_a_draw_with_all_moves_as_first_statistics() {
    let net = net("tictactoe");
    let mut mcts =
        Mcts::new(Arc::new(Program::new(&net)), None, MctsConfig { rave: 0.05, ..config(200_000) }).expect("starts");
    let stats = mcts.search_iterations(50_000).expect("searches");
    assert_eq!(stats.proven, Some(vec![50, 50]), "after {} iterations", stats.iterations);
}

/// ticTacToeParallel (marks on two boards at once; a line on either ends the game and scores its
/// maker 50, two drawn boards score 50 each) after x took both centres and o the corners it
/// took in a match lost to Sancho: x threatens (1 2) on both boards, and o to move has one
/// saving mark, `(mark 1 2 1 2)`. Searched with the rivalry bonus `rivalry` until the root is
/// proven: o's move, the saving mark, and what the proof of `(mark 2 1 1 2)` (which leaves the
/// line on the first board open) gives o.
fn parallel_defence(rivalry: f64) -> Option<(u32, u32, Option<u32>)> {
    let net = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "ticTacToeParallel")?;
    let moves = [
        ["(mark 2 2 2 2)", "noop"],
        ["noop", "(mark 3 3 3 1)"],
        ["(mark 1 3 1 3)", "noop"],
        ["noop", "(mark 3 1 3 3)"],
        ["(mark 3 2 3 2)", "noop"],
    ];
    let config = MctsConfig { rivalry, ..config(400_000) };
    let (m, mut mcts) = search_from(&net, &moves, Some(knowledge(&net)), config);
    let stats = mcts.search_iterations(20_000).expect("searches");
    assert!(stats.proven.is_some(), "the goal latches prove the position within {} iterations", stats.iterations);
    let open = m.find_move(1, "(mark 2 1 1 2)")?;
    let left = mcts.move_stats(1).iter().find(|s| s.mv == open)?.proven;
    Some((mcts.best_move(1)?, m.find_move(1, "(mark 1 2 1 2)")?, left))
}

#[test]
fn a_rival_is_expected_to_complete_a_line_worth_no_more_than_a_draw() {
    let Some((played, saving, left)) = parallel_defence(2.0) else { return };
    assert_eq!(played, saving, "o leaves x a line");
    assert_eq!(left, Some(0), "x completes the line");
    // On goal values alone, x is as happy to play on to a drawn end as to complete its line,
    // and the proof counts on it: leaving the line open is proven as good as closing it.
    let Some((_, _, left)) = parallel_defence(0.0) else { return };
    assert_eq!(left, Some(50));
}

#[test]
fn tictactoe_is_solved_as_a_draw() {
    let net = net("tictactoe");
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config(200_000)).expect("starts");
    let stats = mcts.search_iterations(50_000).expect("searches");
    assert_eq!(stats.proven, Some(vec![50, 50]), "after {} iterations", stats.iterations);
    // With the result proven, the best move is one that keeps the draw, and of those the one
    // whose playouts scored best: where the opponent went wrong most often.
    let best = mcts.best_move(0).expect("a move");
    let stats = mcts.move_stats(0);
    let kept = stats.iter().find(|s| s.mv == best).expect("a root move");
    assert_eq!(kept.proven, Some(50));
    let draws: Vec<_> = stats.iter().filter(|s| s.proven == Some(50)).collect();
    assert!(draws.len() > 1, "every first move keeps the draw");
    assert!(draws.iter().all(|s| s.mean <= kept.mean), "{draws:?}");
    assert!(draws.iter().any(|s| s.mean < kept.mean), "the draws' playouts scored differently");
}

#[test]
fn a_move_is_valued_by_every_path_to_the_state_it_reaches() {
    let net = net("tictactoe");
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config(200_000)).expect("starts");
    mcts.search_iterations(5_000).expect("searches");
    let off = MctsConfig { transpositions: false, ..config(1) };
    let (pool, root) = (&mcts.pool, mcts.root_node());
    /// The moves of `role` (alone to move at `node`) that have a node, with it.
    fn children<'a>(
        pool: &'a tree::Pool<PropnetMachine>,
        node: &'a Node<PropnetMachine>,
        role: usize,
    ) -> Vec<(usize, &'a Node<PropnetMachine>)> {
        (0..node.move_count(role)).filter_map(|i| Some((i, node.child(i as u64).and_then(|c| pool.get(c))?))).collect()
    }
    // x, o, x: the state after two marks of x and one of o is reached with x's marks in
    // either order, so the third move's state has samples that came the other way too.
    let mut pooled = 0;
    for (_, after_x) in children(pool, root, 0) {
        for (_, after_o) in children(pool, after_x, 1) {
            for (k, after) in
                children(pool, after_o, 0).into_iter().filter(|(_, c)| c.proof.is_none() && c.floor.is_none())
            {
                let edge = after_o.edge(0, k);
                let (sum, visits) = select::totals(after, 0);
                let own = (edge.sum, f64::from(edge.visits));
                // Every visit of the move but the one that made the node went on through it.
                assert!(visits + 1 >= edge.visits, "{visits} samples for a move of {} visits", edge.visits);
                let more = visits > 0 && visits >= edge.visits;
                let expected = if more { (sum, f64::from(visits)) } else { own };
                assert_eq!(select::samples(&mcts.config, edge, Some(after), 0), expected);
                assert_eq!(select::samples(&off, edge, Some(after), 0), own);
                pooled += usize::from(more);
            }
        }
    }
    assert!(pooled > 0, "no state after three moves was reached by two paths");
}

#[test]
fn the_corridor_is_solved_and_its_plan_followed() {
    let net = net("untwistycorridor");
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), Some(knowledge(&net)), config(10_000)).expect("starts");
    let stats = mcts.search_iterations(100_000).expect("searches");
    assert_eq!(stats.proven, Some(vec![100]));
    assert_eq!(stats.proven_depth, Some(7), "the win takes seven moves");
    let m = PropnetMachine::new(&net);
    let d = m.find_move(0, "d");
    assert_eq!(mcts.plan().map(|p| (p.moves.len(), p.score)), Some((7, 100)));
    for _ in 0..7 {
        let mv = mcts.best_move(0).expect("a move");
        assert_eq!(Some(mv), d);
        mcts.advance(&[mv]).expect("legal");
    }
    assert_eq!(mcts.best_move(0), None, "the game is over");
}

#[test]
fn goal_latches_shrink_the_corridor_search() {
    let net = net("untwistycorridor");
    let knowledge = knowledge(&net);
    let program = Arc::new(Program::new(&net));
    // Totals over ten seeds of nodes made and playouts run until the root is proven.
    let mut work = [(0, 0); 2];
    for (k, knowledge) in [Some(knowledge), None].into_iter().enumerate() {
        for seed in 0..10 {
            let config = MctsConfig { seed, ..config(100_000) };
            let mut mcts = Mcts::new(Arc::clone(&program), knowledge.clone(), config).expect("starts");
            let stats = mcts.search_iterations(100_000).expect("searches");
            assert_eq!(stats.proven, Some(vec![100]));
            work[k].0 += stats.nodes;
            work[k].1 += stats.playouts;
        }
    }
    // Every wrong move of a step leads to the same state, so transpositions alone keep the plain
    // search small (about 36 nodes); the latches spare it the chains of lost states below them
    // (about 15 nodes: the winning line and one lost state per step) and most playouts.
    let [(nodes, playouts), (plain_nodes, plain_playouts)] = work;
    assert!(nodes <= 10 * 16, "{nodes} nodes with goal latches");
    assert!(plain_nodes >= 2 * nodes, "{plain_nodes} nodes without goal latches, {nodes} with");
    assert!(plain_playouts >= 3 * playouts, "{plain_playouts} playouts without goal latches, {playouts} with");
}

#[test]
fn a_tiny_pool_stays_within_its_bound() {
    let net = net("connectfour");
    let mut m = PropnetMachine::new(&net);
    let initial = m.initial_state();
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config(50)).expect("starts");
    let stats = mcts.search_iterations(20_000).expect("searches");
    assert!(stats.nodes <= 50 && stats.max_nodes == 50, "{stats:?}");
    assert!(stats.trims > 0 && stats.iterations == 20_000, "{stats:?}");
    for role in 0..2 {
        let legal = m.legal_moves(&initial, role).expect("legal");
        assert!(legal.contains(&mcts.best_move(role).expect("a move")));
    }
}

#[test]
fn a_full_pool_hands_nodes_back_rather_than_trim_past_the_search_deadline() {
    let net = net("connectfour");
    let mut m = PropnetMachine::new(&net);
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config(50)).expect("starts");
    mcts.search_iterations(2_000).expect("searches");
    let trims = mcts.stats().trims;
    assert!(trims > 0, "{:?}", mcts.stats());
    // The states two plies from the start (49) that the pool has no node for.
    let initial = m.initial_state();
    let mut fresh = Vec::new();
    let waits = m.legal_moves(&initial, 1).expect("legal")[0];
    for a in m.legal_moves(&initial, 0).expect("legal") {
        let after = m.next_state(&initial, &[a, waits]).expect("next");
        let waits = m.legal_moves(&after, 0).expect("legal")[0];
        for b in m.legal_moves(&after, 1).expect("legal") {
            let state = m.next_state(&after, &[waits, b]).expect("next");
            if mcts.pool.find(&state).is_none() {
                fresh.push(state);
            }
        }
    }
    let (root, tick) = (mcts.root, mcts.tick + 1);
    // With the deadline passed, a trim would make the search late: once the pool is full, the
    // node comes back.
    mcts.pool.trim_before(Some(Instant::now()));
    let mut refused = None;
    for state in fresh {
        let node = mcts.describe(state.clone()).expect("describes");
        if mcts.pool.insert(node, root, tick).is_err() {
            refused = Some(state);
            break;
        }
    }
    let refused = refused.expect("the pool fills up before the states run out");
    assert_eq!((mcts.pool.trims, mcts.pool.len()), (trims, 50));
    // With time to spare, the pool makes room.
    let node = mcts.describe(refused.clone()).expect("describes");
    mcts.pool.trim_before(Some(Instant::now() + Duration::from_secs(60)));
    assert!(mcts.pool.insert(node, root, tick).is_ok());
    assert_eq!(mcts.pool.trims, trims + 1);
    assert!(mcts.pool.find(&refused).is_some() && mcts.pool.len() <= 50);
}

#[test]
fn a_byte_budget_bounds_the_pool_before_its_node_count_does() {
    let net = net("connectfour");
    let budget = 64 << 10;
    let config = MctsConfig { max_bytes: budget, ..config(1_000_000) };
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config).expect("starts");
    let mut most = 0;
    for _ in 0..20 {
        let stats = mcts.search_iterations(1_000).expect("searches");
        most = most.max(stats.bytes);
    }
    let stats = mcts.stats();
    // A node of connectFour is counted at a few hundred bytes, so the budget holds a few
    // hundred nodes; the pool may pass it by the one node being inserted.
    assert!(stats.trims > 0 && stats.nodes > 50 && stats.nodes < 1_000, "{stats:?}");
    assert!(most <= budget + 1_000, "{most} bytes counted against a budget of {budget}");
}

#[test]
fn worker_threads_return_legal_moves() {
    let net = net("connectfour");
    let mut m = PropnetMachine::new(&net);
    let initial = m.initial_state();
    let config = MctsConfig { threads: 2, ..config(100_000) };
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config).expect("starts");
    let stats = mcts.search_iterations(5_000).expect("searches");
    assert!(stats.iterations >= 5_000 && stats.playouts > 0, "{stats:?}");
    for role in 0..2 {
        let legal = m.legal_moves(&initial, role).expect("legal");
        assert!(legal.contains(&mcts.best_move(role).expect("a move")));
    }
}

#[test]
fn advancing_keeps_the_subtree_statistics() {
    let net = net("tictactoe");
    let (m, mut mcts) = search_from(&net, &[], None, config(100_000));
    mcts.search_iterations(3_000).expect("searches");
    let best = mcts.best_move(0).expect("a move");
    let visits = mcts.move_stats(0).iter().find(|s| s.mv == best).map(|s| s.visits).expect("listed");
    let noop = m.find_move(1, "noop").expect("a move");
    assert!(mcts.advance(&[best, best]).is_err(), "x's move is not o's");
    mcts.advance(&[best, noop]).expect("legal");
    assert!(visits > 100);
    assert_eq!(mcts.stats().root_visits, visits);
    let before = mcts.stats().iterations;
    mcts.search(Instant::now() + Duration::from_millis(20)).expect("searches");
    assert!(mcts.stats().iterations > before);
}

#[test]
fn local_verdicts_steer_selection_and_a_local_win_is_played() {
    let net = net("breakthroughsmall");
    let mut mcts = Mcts::new(Arc::new(propnet::Program::new(&net)), None, config(100_000)).unwrap();
    mcts.search_iterations(2_000).unwrap();
    let root = mcts.root_state().clone();
    let stats = mcts.move_stats(0);
    let favourite = stats.iter().max_by_key(|s| s.visits).unwrap().mv;
    let outsider = stats.iter().min_by_key(|s| s.visits).unwrap().mv;
    assert_ne!(favourite, outsider);
    // Say the favourite loses by force: however many visits it has, it is not played.
    assert_eq!(mcts.best_move(0), Some(favourite));
    assert!(mcts.mark_local(&root, &[(favourite, false)]));
    assert_ne!(mcts.best_move(0), Some(favourite));
    // If every move loses, the tree's order stands.
    let every: Vec<_> = stats.iter().map(|s| (s.mv, false)).collect();
    assert!(mcts.mark_local(&root, &every));
    assert_eq!(mcts.best_move(0), Some(favourite));
    // And the outsider wins: it is played at once, and the favourite is hardly chosen any more.
    assert!(mcts.mark_local(&root, &[(favourite, false), (outsider, true)]));
    assert_eq!(mcts.best_move(0), Some(outsider));
    let before = mcts.move_stats(0).iter().find(|s| s.mv == favourite).unwrap().visits;
    mcts.search_iterations(2_000).unwrap();
    let after = mcts.move_stats(0).iter().find(|s| s.mv == favourite).unwrap().visits;
    assert!(after - before < 50, "the losing favourite still took {} of 2000 visits", after - before);
    assert!(!mcts.mark_local(&PropnetState::from_bases(net.bases.len(), []), &[(favourite, true)]));
}

/// Breakthrough: white runs its a-pawn up to a5 while black shuffles on the h-file; black's b7
/// pawn guards a6.
const A_PAWN_ON_A5: [[&str; 2]; 6] = [
    ["(move 1 2 1 3)", "noop"],
    ["noop", "(move 8 7 8 6)"],
    ["(move 1 3 1 4)", "noop"],
    ["noop", "(move 8 6 8 5)"],
    ["(move 1 4 1 5)", "noop"],
    ["noop", "(move 8 8 8 7)"],
];

#[test]
fn piece_priors_favour_a_capture_and_leave_quiet_moves_even() {
    let net = net("breakthrough");
    let knowledge = Arc::new(piece_guide(&net, false));
    // White runs a pawn up the a-file to a6, where black's b7 pawn can take it.
    let mut moves = A_PAWN_ON_A5.to_vec();
    moves.push(["(move 1 5 1 6)", "noop"]);
    let (m, mut mcts) = search_from(&net, &moves, Some(knowledge), config(100_000));
    mcts.search_iterations(500).expect("searches");
    let root = mcts.root_node();
    assert_eq!(root.kind, Kind::Mover(1));
    let prior = |name: &str| {
        let mv = m.find_move(1, name).expect("a move");
        root.priors[(0..root.move_count(1)).find(|&i| root.role_move(1, i) == mv).expect("legal")]
    };
    assert!(root.prior_weight > 0.0);
    assert!(prior("(move 2 7 1 6)") > 55, "the capture: {}", prior("(move 2 7 1 6)"));
    assert_eq!(prior("(move 3 7 3 6)"), 50, "a quiet move");
    // The priors are only a start: the search still takes the capture most.
    let best = mcts.best_move(1).expect("a move");
    assert_eq!(m.format_move(&best), "(move 2 7 1 6)");
}

#[test]
fn a_playout_cut_off_early_scores_the_material_won_since_the_root() {
    let net = net("breakthrough");
    let knowledge = piece_guide(&net, true);
    let mut m = PropnetMachine::new(&net);
    let root = m.initial_state();
    // The leaf: white has taken black's a7 pawn, far from anything that could take back.
    let gone = net.bases.iter().position(|b| b.name == "(cellholds 1 7 black)").expect("a base");
    let mut leaf = root.clone();
    leaf.set(gone, false);
    let cutoff = Some(Cutoff { steps: 2, root: Arc::from(root.words()), placement: 0.0 });
    let settings =
        Settings { max_steps: 10_000, trace: true, knowledge: None, deadline: None, mast: None, cutoff, captures: 0.0 };
    let mut rng = SmallRng::seed_from_u64(3);
    let mut lookahead = Lookahead::default();
    let outcome = playout::guided(&mut m, &mut lookahead, &leaf, &knowledge, &mut rng, &settings)
        .expect("plays")
        .expect("in time");
    assert_eq!(outcome.moves.len(), 2 * 2, "two joint moves, then the cutoff");
    assert!(!outcome.complete, "an estimate, not an end");
    assert!(
        outcome.scores[0] > 55 && (99..=101).contains(&(u32::from(outcome.scores[0]) + u32::from(outcome.scores[1])))
    );
    // Without a cutoff the same playout runs to the end of the game.
    let settings = Settings { cutoff: None, ..settings };
    let outcome = playout::guided(&mut m, &mut lookahead, &leaf, &knowledge, &mut rng, &settings).expect("plays");
    assert!(outcome.expect("in time").complete);
}

/// A one-shot game of two roles who each show one of two sides, scored by `scores`: the first
/// role's score for (first, first), (first, second), (second, first), (second, second), then
/// the second role's.
fn one_shot(scores: [u8; 8]) -> Net {
    let mut text = String::from(
        "(role row) (role col) (init start)
         (<= (legal ?r (show ?s)) (role ?r) (side ?s)) (side one) (side two)
         (<= (next (shown ?r ?s)) (does ?r (show ?s)))
         (<= terminal (true (shown row ?s)))",
    );
    let pairs = [("one", "one"), ("one", "two"), ("two", "one"), ("two", "two")];
    for (k, role) in ["row", "col"].iter().enumerate() {
        for (i, (a, b)) in pairs.iter().enumerate() {
            let score = scores[4 * k + i];
            text.push_str(&format!("(<= (goal {role} {score}) (true (shown row {a})) (true (shown col {b})))"));
        }
    }
    testkit::compile(&testkit::load("one-shot", &text))
}

/// Each role's share of the root visits that went to its first move, after `iterations`.
fn first_move_shares(net: &Net, regret: f64, iterations: u64) -> [f64; 2] {
    let config = MctsConfig { regret, ..config(10_000) };
    let mut mcts = Mcts::new(Arc::new(Program::new(net)), None, config).expect("starts");
    mcts.search_iterations(iterations).expect("searches");
    [0, 1].map(|r| {
        let stats = mcts.move_stats(r);
        stats[0].visits as f64 / stats.iter().map(|s| s.visits as f64).sum::<f64>()
    })
}

#[test]
fn regret_matching_finds_the_uneven_mix_of_a_zero_sum_game() {
    // The row role wins 100 on (one, one) and 50 on (two, two): each role plays `one` a third
    // of the time at equilibrium.
    let net = one_shot([100, 0, 0, 50, 0, 100, 100, 50]);
    let shares = first_move_shares(&net, 0.1, 30_000);
    for share in shares {
        assert!((0.25..0.42).contains(&share), "{shares:?}");
    }
}

#[test]
fn regret_matching_defects_in_the_prisoners_dilemma() {
    // Cooperating (`one`) is strictly dominated by defecting (`two`) for both roles.
    let net = one_shot([60, 0, 100, 20, 60, 100, 0, 20]);
    let shares = first_move_shares(&net, 0.1, 10_000);
    for share in shares {
        assert!(share < 0.2, "{shares:?}");
    }
}

#[test]
fn answers_under_a_leaders_move_value_it_at_the_best_reply() {
    // Matching pennies: the row role wins on (one, one) and (two, two). Where the column role
    // answers the row's move, each row move is worth what the mismatch leaves it, nothing;
    // where the two choose apart, each is worth half.
    let net = one_shot([100, 0, 0, 100, 0, 100, 100, 0]);
    let program = Arc::new(Program::new(&net));
    let means = |leader: Option<usize>| {
        let config = MctsConfig { regret: 0.1, leader, ..config(10_000) };
        let mut mcts = Mcts::new(Arc::clone(&program), None, config).expect("starts");
        mcts.search_iterations(20_000).expect("searches");
        mcts.move_stats(0).iter().map(|s| s.mean.expect("visited")).collect::<Vec<_>>()
    };
    for mean in means(Some(0)) {
        assert!(mean < 10.0, "answered: {mean}");
    }
    for mean in means(None) {
        assert!((40.0..60.0).contains(&mean), "apart: {mean}");
    }
    // The column role led: its moves are worth nothing to it in turn, and the row's answers
    // win.
    let config = MctsConfig { leader: Some(1), ..config(10_000) };
    let mut mcts = Mcts::new(Arc::clone(&program), None, config).expect("starts");
    mcts.search_iterations(20_000).expect("searches");
    let column: Vec<f64> = mcts.move_stats(1).iter().map(|s| s.mean.expect("visited")).collect();
    assert!(column.iter().all(|&m| m < 10.0), "{column:?}");
}

/// `count` numbers spread evenly over 0..1, to draw moves from a mix with.
fn evenly(count: u32) -> impl Iterator<Item = f64> {
    (0..count).map(move |k| (f64::from(k) + 0.5) / f64::from(count))
}

/// How often each role plays its first move when the move is drawn from the tree's mixed
/// strategy at `draws` evenly spread numbers, after `iterations` of search; and whether its
/// most visited move is the first.
fn first_move_draws(net: &Net, iterations: u64, draws: u32) -> ([f64; 2], [bool; 2]) {
    let config = MctsConfig { regret: 0.1, ..config(10_000) };
    let mut mcts = Mcts::new(Arc::new(Program::new(net)), None, config).expect("starts");
    mcts.search_iterations(iterations).expect("searches");
    let shares = [0, 1].map(|r| {
        let first = mcts.move_stats(r)[0].mv;
        evenly(draws).filter(|&u| mcts.checked_best_move(r, Some(u)) == Some(first)).count() as f64 / f64::from(draws)
    });
    (shares, [0, 1].map(|r| mcts.best_move(r) == Some(mcts.move_stats(r)[0].mv)))
}

#[test]
fn drawn_moves_follow_the_mix_and_leave_out_what_was_only_explored() {
    // The uneven mix above: each role plays `one` a third of the time when its move is drawn.
    let net = one_shot([100, 0, 0, 50, 0, 100, 100, 50]);
    let (shares, _) = first_move_draws(&net, 30_000, 1_000);
    for share in shares {
        assert!((0.22..0.42).contains(&share), "{shares:?}");
    }
    // Where defecting dominates, cooperating is visited only by the uniform share and never
    // drawn, and the most visited move is the one drawn.
    let net = one_shot([60, 0, 100, 20, 60, 100, 0, 20]);
    let (shares, best) = first_move_draws(&net, 10_000, 1_000);
    assert_eq!(shares, [0.0, 0.0]);
    assert_eq!(best, [false, false], "defecting is each role's second move");
}

#[test]
fn a_move_scoring_far_below_the_mix_is_never_drawn_however_often_it_was_tried() {
    // The row role's `one` scores 100 and `two` nothing, whatever the other does. After a few
    // iterations `two` may still have more visits than exploring alone gives it (regret
    // matching plays uniformly until some move has a positive regret), but never its mean.
    let net = one_shot([100, 100, 0, 0, 50, 50, 50, 50]);
    let program = Arc::new(Program::new(&net));
    for seed in 0..40 {
        let config = MctsConfig { regret: 0.1, seed, ..config(10_000) };
        let mut mcts = Mcts::new(Arc::clone(&program), None, config).expect("starts");
        mcts.search_iterations(16).expect("searches");
        let stats = mcts.move_stats(0);
        for u in evenly(100) {
            let drawn = mcts.checked_best_move(0, Some(u));
            assert_eq!(drawn, Some(stats[0].mv), "seed {seed}: {stats:?}");
        }
    }
}

#[test]
fn a_move_that_keeps_the_mixs_value_however_it_is_answered_is_played_instead_of_a_draw() {
    // The row role's `safe` scores 50 whatever the column shows; `high` scores 60 against `x`
    // and 40 against `y`, `low` the reverse (the column scores the rest of 100). Every mix with
    // as much `high` as `low` is an equilibrium worth 50, so the tree's mix keeps all three;
    // only `safe` keeps its 50 when the column foresees it.
    let mut text = String::from(
        "(role row) (role col) (init start)
         (<= (legal row (show ?s)) (pick ?s)) (pick safe) (pick high) (pick low)
         (<= (legal col (show ?s)) (side ?s)) (side x) (side y)
         (<= (next (shown ?r ?s)) (does ?r (show ?s)))
         (<= terminal (true (shown row ?s)))",
    );
    for (row, col, score) in
        [("safe", "x", 50), ("safe", "y", 50), ("high", "x", 60), ("high", "y", 40), ("low", "x", 40), ("low", "y", 60)]
    {
        let shown = format!("(true (shown row {row})) (true (shown col {col}))");
        text.push_str(&format!("(<= (goal row {score}) {shown}) (<= (goal col {}) {shown})", 100 - score));
    }
    let net = testkit::compile(&testkit::load("secure", &text));
    let program = Arc::new(Program::new(&net));
    for seed in 0..5 {
        let config = MctsConfig { regret: 0.1, seed, ..config(10_000) };
        let mut mcts = Mcts::new(Arc::clone(&program), None, config).expect("starts");
        mcts.search_iterations(20_000).expect("searches");
        let stats = mcts.move_stats(0);
        let safe = mcts.root_move(0, "(show safe)").expect("legal");
        for u in evenly(100) {
            let drawn = mcts.checked_best_move(0, Some(u));
            assert_eq!(drawn, Some(safe), "seed {seed}: {stats:?}");
        }
        // The column has no such move: each of its moves loses 60 to one of the row's.
        let column: std::collections::HashSet<_> =
            evenly(100).filter_map(|u| mcts.checked_best_move(1, Some(u))).collect();
        assert_eq!(column.len(), 2, "seed {seed}: {:?}", mcts.move_stats(1));
    }
}

#[test]
fn the_material_check_keeps_the_player_from_hanging_a_pawn() {
    let net = net("breakthrough");
    let knowledge = Arc::new(piece_guide(&net, false));
    // White's a-pawn on a5: stepping on to a6 lets black's b7 pawn take it for nothing.
    let config = MctsConfig { material_check: true, ..config(100_000) };
    let (m, mut mcts) = search_from(&net, &A_PAWN_ON_A5, Some(knowledge), config);
    mcts.search_iterations(200).expect("searches");
    let far = Instant::now() + Duration::from_secs(60);
    let values = mcts.material_check(0, far).expect("checks").expect("white alone moves, with pieces");
    let stats = mcts.move_stats(0);
    assert_eq!(values.len(), stats.len());
    let value = |mv: u32| values[stats.iter().position(|s| s.mv == mv).expect("legal")];
    let top = values.iter().copied().fold(f64::MIN, f64::max);
    let hang = m.find_move(0, "(move 1 5 1 6)").expect("a move");
    assert!((top - 0.5).abs() < 0.01, "white can keep its material: {top}");
    assert!(value(hang) < top - 0.05, "a6 loses the pawn: {} against {top}", value(hang));
    // Whatever the tree prefers, the player's move keeps the material.
    let played = mcts.checked_best_move(0, None).expect("a move");
    assert!(value(played) >= top - 0.03, "{} keeps {}", m.format_move(&played), value(played));
    // The check is kept for the root: asked again, it answers at once with the same values.
    assert_eq!(mcts.material_check(0, Instant::now()).expect("checks"), Some(values));
}

#[test]
fn the_material_check_sees_a_pawn_through_in_two_moves() {
    let net = net("breakthrough");
    let knowledge = Arc::new(piece_guide(&net, false));
    // Black's pawn on d3 is held only by white's back rank: c1, d1 and e1 cover every square it
    // can step to. Moving d1 lets it through: d3-c2 (or takes on e2), and nothing can stop it on
    // the next move. Three plies see no material change there; five see the lost game.
    let bases = [
        "(control white)",
        "(cellholds 3 1 white)",
        "(cellholds 4 1 white)",
        "(cellholds 5 1 white)",
        "(cellholds 8 2 white)",
        "(cellholds 4 3 black)",
        "(cellholds 1 8 black)",
        "(cellholds 8 8 black)",
    ];
    let index = |name: &str| net.bases.iter().position(|b| b.name == name).expect("a base proposition");
    let state = PropnetState::from_bases(net.bases.len(), bases.iter().map(|b| index(b)));
    let config = MctsConfig { material_check: true, ..config(100_000) };
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), Some(knowledge), config).expect("starts");
    mcts.root = mcts.node_for(state).expect("a node");
    let m = PropnetMachine::new(&net);
    let far = Instant::now() + Duration::from_secs(60);
    let values = mcts.material_check(0, far).expect("checks").expect("white alone moves, with pieces");
    let stats = mcts.move_stats(0);
    let value = |name: &str| {
        let mv = m.find_move(0, name).expect("a move");
        values[stats.iter().position(|s| s.mv == mv).expect("legal")]
    };
    let top = values.iter().copied().fold(f64::MIN, f64::max);
    assert!(top >= 0.5, "white keeps the pawn out: {top}");
    // A move outside the safe range may be valued by a bound only, but one below that range.
    for opening in ["(move 4 1 4 2)", "(move 4 1 5 2)", "(move 4 1 3 2)"] {
        assert!(value(opening) < top - 0.2, "{opening} lets the pawn through: {}", value(opening));
    }
    assert!(value("(move 8 2 8 3)") >= top - 0.03, "a move far away keeps the rank");
    mcts.search_iterations(200).expect("searches");
    let played = mcts.checked_best_move(0, None).expect("a move");
    assert!(value(&m.format_move(&played)) >= top - 0.03, "{} keeps the rank", m.format_move(&played));
}

#[test]
fn a_line_the_rules_score_twice_is_played_for_its_higher_value() {
    let net = testkit::compile(&testkit::load("ambiguous", testkit::AMBIGUOUS_LINE));
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config(1_000)).expect("starts");
    mcts.search_iterations(200).expect("searches");
    let line = mcts.machine().find_move(1, "line").expect("a move");
    assert_eq!(mcts.best_move(1), Some(line));
}

/// A one-player game decided by its first move: `bank` latches `safe` (50, or 100 if the last
/// of twenty coin moves is heads), ending the game at once if `bank_ends`; `gamble` latches
/// `lost` (30 or 0 by the same coin). Each coin move is remembered, so no two lines of play meet.
/// Where `bank` ends the game, a goal of 100 that no line reaches keeps the root's best open.
fn bank_or_gamble(bank_ends: bool) -> Net {
    let mut text = String::from(
        "(role p) (init (step 0)) (coin h) (coin t)
         (<= (legal p bank) (true (step 0)))
         (<= (legal p gamble) (true (step 0)))
         (<= (legal p (walk ?x)) (not (true (step 0))) (coin ?x))
         (<= (next safe) (does p bank)) (<= (next safe) (true safe))
         (<= (next lost) (does p gamble)) (<= (next lost) (true lost))
         (<= (next lit) (does p (walk h)))
         (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
         (<= (next (mark ?n ?x)) (true (step ?n)) (does p (walk ?x)))
         (<= (next (mark ?n ?x)) (true (mark ?n ?x)))
         (<= terminal (true (step 20)))
         (<= (goal p 30) (not (true safe)) (true lost) (true lit))
         (<= (goal p 0) (not (true safe)) (not (true lit)))",
    );
    text.push_str(if bank_ends {
        "(<= terminal (true safe)) (<= (goal p 50) (true safe) (not (true lost)))
         (<= (goal p 100) (not (true safe)) (not (true lost)) (true lit))"
    } else {
        "(<= (goal p 100) (true safe) (not (true lost)) (true lit))
         (<= (goal p 50) (true safe) (not (true lost)) (not (true lit)))"
    });
    for n in 0..20 {
        text.push_str(&format!("(succ {n} {})", n + 1));
    }
    testkit::compile(&testkit::load("bank-or-gamble", &text))
}

/// The root's visits to `gamble`, and the root's proof, after `iterations` with `dominance`.
fn gamble_visits(net: &Net, dominance: bool, iterations: u64) -> (u64, Option<Vec<u32>>) {
    let config = MctsConfig { dominance, ..config(100_000) };
    let mut mcts = Mcts::new(Arc::new(Program::new(net)), Some(knowledge(net)), config).expect("starts");
    let stats = mcts.search_iterations(iterations).expect("searches");
    let m = PropnetMachine::new(net);
    let gamble = m.find_move(0, "gamble").expect("a move");
    let visits = mcts.move_stats(0).iter().find(|s| s.mv == gamble).map_or(0, |s| s.visits);
    (visits, stats.proven)
}

#[test]
fn a_move_whose_latches_keep_it_below_what_another_is_sure_of_is_left_alone() {
    // After `gamble` the most left is 30; after `bank` the least is 50.
    let net = bank_or_gamble(false);
    let (dominated, _) = gamble_visits(&net, true, 20_000);
    let (sampled, _) = gamble_visits(&net, false, 20_000);
    assert!(dominated <= 1, "{dominated} visits to a dominated move");
    assert!(sampled >= 5, "{sampled} visits without dominance");
}

#[test]
fn a_proven_move_above_every_open_moves_best_proves_the_node() {
    // `bank` ends the game with 50; `gamble`'s million lines can give 30 at most.
    let net = bank_or_gamble(true);
    assert_eq!(gamble_visits(&net, true, 3_000).1, Some(vec![50]));
    assert_eq!(gamble_visits(&net, false, 3_000).1, None, "without dominance the coins must be tried");
}

/// q picks a side, then p either `join`s (every side reaches the same state, where p can `win`
/// at once) or `gamble`s on twenty coin moves (each remembered, so no two lines of play meet).
/// p wins by joining whatever q picks; proving it takes the proof of the shared state to both
/// of its parents.
fn join_or_gamble() -> Net {
    let mut text = String::from(
        "(role q) (role p) (init (step 0)) (side a) (side b) (coin h) (coin t)
         (<= (legal q (pick ?x)) (true (step 0)) (side ?x))
         (<= (legal p noop) (true (step 0)))
         (<= (legal q noop) (not (true (step 0))))
         (<= (legal p join) (true (step 1)))
         (<= (legal p gamble) (true (step 1)))
         (<= (legal p win) (true (step 2)))
         (<= (legal p gamble) (true (step 2)))
         (<= (legal p (walk ?x)) (true walking) (coin ?x))
         (<= (next (step 1)) (true (step 0)))
         (<= (next (last ?x)) (does q (pick ?x)))
         (<= (next (step 2)) (does p join))
         (<= (next won) (does p win))
         (<= (next walking) (does p gamble)) (<= (next walking) (true walking))
         (<= (next (count 0)) (does p gamble))
         (<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))
         (<= (next (mark ?n ?x)) (true (count ?n)) (does p (walk ?x)))
         (<= (next (mark ?n ?x)) (true (mark ?n ?x)))
         (<= (next lit) (does p (walk h))) (<= (next lit) (true lit))
         (<= terminal (true won)) (<= terminal (true (count 20)))
         (<= (goal p 100) (true won)) (<= (goal q 0) (true won))
         (<= (goal p 50) (true (count 20)) (true lit)) (<= (goal q 50) (true (count 20)) (true lit))
         (<= (goal p 0) (true (count 20)) (not (true lit)))
         (<= (goal q 100) (true (count 20)) (not (true lit)))",
    );
    for n in 0..20 {
        text.push_str(&format!("(succ {n} {})", n + 1));
    }
    testkit::compile(&testkit::load("join-or-gamble", &text))
}

#[test]
fn a_state_proven_along_one_path_proves_its_other_parents() {
    // Each side's node links the shared state within its first visits, before either path
    // proves it; the parent the proof did not come through then never chooses the proven
    // state again, and its gamble cannot be proven in the budget.
    let net = join_or_gamble();
    for seed in 1..=8 {
        let config = MctsConfig { seed, ..config(100_000) };
        let mut mcts = Mcts::new(Arc::new(Program::new(&net)), None, config).expect("starts");
        let stats = mcts.search_iterations(3_000).expect("searches");
        assert_eq!(stats.proven, Some(vec![0, 100]), "seed {seed}: after {} iterations", stats.iterations);
    }
}

/// q picks one of eight numbers (remembered, so no two picks meet), then p picks one and the
/// game ends: p wins if it picked 1. `won` is a latch and the end reads two bases, so a guided
/// playout from p's turn takes the winning pick at once.
fn pick_one() -> Net {
    let mut text = String::from(
        "(role q) (role p) (init (turn q))
         (<= (legal q (pick ?n)) (true (turn q)) (number ?n))
         (<= (legal p noop) (true (turn q)))
         (<= (legal p (pick ?n)) (true (turn p)) (number ?n))
         (<= (legal q noop) (true (turn p)))
         (<= (next (turn p)) (true (turn q)))
         (<= (next (first ?n)) (does q (pick ?n))) (<= (next (first ?n)) (true (first ?n)))
         (<= (next done) (true (turn p)))
         (<= (next won) (does p (pick 1))) (<= (next won) (true won))
         (<= terminal (true done))
         (<= (goal p 100) (true won)) (<= (goal q 0) (true won))
         (<= (goal p 0) (not (true won))) (<= (goal q 100) (not (true won)))",
    );
    for n in 1..=8 {
        text.push_str(&format!("(number {n})"));
    }
    testkit::compile(&testkit::load("pick-one", &text))
}

#[test]
fn a_node_whose_mover_wins_at_once_is_proven_by_its_first_playout() {
    // Each of q's picks is tried once, and its playout, p's winning pick, proves it: the root
    // is lost for q after eight iterations. Selection alone would have to come back to each
    // of p's nodes until it tried the winning pick there.
    let net = pick_one();
    let mut mcts = Mcts::new(Arc::new(Program::new(&net)), Some(knowledge(&net)), config(10_000)).expect("starts");
    let stats = mcts.search_iterations(8).expect("searches");
    assert_eq!(stats.proven, Some(vec![0, 100]), "after {} iterations", stats.iterations);
    assert_eq!(stats.proven_depth, Some(2));
    // The proof stands on the winning pick's node, so p knows its move without searching.
    let m = PropnetMachine::new(&net);
    let joint = [m.find_move(0, "(pick 3)").expect("a move"), m.find_move(1, "noop").expect("a move")];
    mcts.advance(&joint).expect("legal");
    assert_eq!(mcts.best_move(1), m.find_move(1, "(pick 1)"));
}
