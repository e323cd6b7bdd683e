//! The search against a plain minimax written here from the definition (every pruning, table
//! and ordering switch must leave the value unchanged), the zero-sum proof on games that are and
//! are not zero-sum, and the move it must always have ready.

use super::*;
use metagame::GoalEvaluator;
use propnet::{Net, PropnetState};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

fn net_of(file: &str, text: &str) -> Net {
    testkit::compile(&testkit::load(file, text))
}

fn bundled(name: &str) -> Net {
    testkit::bundled(name).1
}

/// Simultaneous moves for `roles` players over two rounds: everyone picks 1, 2 or 3; a pick
/// nobody else made scores 50, or 100 if it is a 3; a shared pick scores 0. Not zero-sum.
fn picks(roles: usize) -> Net {
    let mut text: String = (0..roles).map(|r| format!("(role p{r})\n")).collect();
    text.push_str(
        "(init (step 0)) (val 1) (val 2) (val 3) (succ 0 1) (succ 1 2)
         (<= (legal ?r (pick ?v)) (role ?r) (val ?v))
         (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
         (<= (next (picked ?r ?v)) (does ?r (pick ?v)))
         (<= (clash ?r) (true (picked ?r ?v)) (true (picked ?s ?v)) (distinct ?r ?s))
         (<= (played ?r) (true (picked ?r ?v)))
         (<= (goal ?r 100) (true (picked ?r 3)) (not (clash ?r)))
         (<= (goal ?r 50) (true (picked ?r ?v)) (distinct ?v 3) (not (clash ?r)))
         (<= (goal ?r 0) (role ?r) (clash ?r))
         (<= (goal ?r 0) (role ?r) (not (played ?r)))
         (<= terminal (true (step 2)))",
    );
    net_of("picks.kif", &text)
}

/// Leaf values that vary from state to state and role to role (goal values alone are 50 almost
/// everywhere in these games, which would hide mistakes), in steps of 10 so that ties are common.
#[derive(Clone, Copy)]
struct Scrambled {
    roles: usize,
}

impl Evaluator for Scrambled {
    fn evaluate(&mut self, _: &mut PropnetMachine, state: &PropnetState) -> Vec<f64> {
        let key = table::Table::key(state);
        (0..self.roles).map(|r| f64::from(((key >> (8 * r)) % 11) as u32 * 10)).collect()
    }
}

fn options(table: bool, ordering: bool, max_depth: u32) -> AlphaBetaConfig {
    AlphaBetaConfig { max_depth, table_entries: if table { 1 << 12 } else { 0 }, ordering }
}

fn searcher(net: &Net, role: usize, options: AlphaBetaConfig) -> Searcher<GoalEvaluator> {
    Searcher::new(PropnetMachine::new(net), role, Model::of(net), GoalEvaluator, options).expect("role exists")
}

fn scrambled(net: &Net, role: usize, options: AlphaBetaConfig) -> Searcher<Scrambled> {
    let evaluator = Scrambled { roles: net.roles.len() };
    Searcher::new(PropnetMachine::new(net), role, Model::of(net), evaluator, options).expect("role exists")
}

/// The state after `steps` random joint moves from the start (fewer if the game ends).
fn random_state(net: &Net, steps: usize, seed: u64) -> PropnetState {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut state = m.initial_state();
    for _ in 0..steps {
        if m.is_terminal(&state).unwrap() {
            break;
        }
        let joint: Vec<u32> = (0..m.roles().len())
            .map(|r| {
                let moves = m.legal_moves(&state, r).unwrap();
                moves[rng.random_range(0..moves.len())]
            })
            .collect();
        state = m.next_state(&state, &joint).unwrap();
    }
    state
}

/// Minimax straight from the definition: our best move against the others' worst joint reply,
/// terminal states scored by our goal, the depth limit by [`Scrambled`] (combined with the
/// opponent's value under the minimax model), and one unit toward 50 points per ply.
fn minimax(m: &mut PropnetMachine, model: Model, role: usize, state: &PropnetState, depth: u32) -> i32 {
    if m.is_terminal(state).unwrap() {
        let goals = m.goal_values(state, role).unwrap();
        return goals.first().map_or(0, |&g| g as i32 * 1000);
    }
    let legal: Vec<Vec<u32>> = (0..m.roles().len()).map(|r| m.legal_moves(state, r).unwrap()).collect();
    if depth == 0 || legal.iter().any(Vec::is_empty) {
        let values = Scrambled { roles: legal.len() }.evaluate(m, state);
        let v = match model {
            Model::Minimax { sum } => (values[role] + f64::from(sum) - values[1 - role]) / 2.0,
            Model::Paranoid => values[role],
        };
        return (v * 1000.0).round() as i32;
    }
    minimax_moves(m, model, role, state, depth).into_iter().max().unwrap()
}

/// [`minimax`]'s value of each of our legal moves in the non-terminal `state`, every role
/// having one: the others' worst joint reply to it.
fn minimax_moves(m: &mut PropnetMachine, model: Model, role: usize, state: &PropnetState, depth: u32) -> Vec<i32> {
    let legal: Vec<Vec<u32>> = (0..m.roles().len()).map(|r| m.legal_moves(state, r).unwrap()).collect();
    let mut joints: Vec<Vec<u32>> = vec![Vec::new()];
    for moves in &legal {
        joints = joints.iter().flat_map(|j| moves.iter().map(move |&mv| [j.clone(), vec![mv]].concat())).collect();
    }
    legal[role]
        .iter()
        .map(|&mine| {
            joints
                .iter()
                .filter(|j| j[role] == mine)
                .map(|j| {
                    let child = m.next_state(state, j).unwrap();
                    let v = minimax(m, model, role, &child, depth - 1);
                    v - (v - 50_000).signum()
                })
                .min()
                .unwrap()
        })
        .collect()
}

/// Checks every switch combination of the search against minimax at `depth` from `state`.
fn agrees_with_minimax(net: &Net, state: &PropnetState, role: usize, depth: u32) -> Result<(), TestCaseError> {
    let mut m = PropnetMachine::new(net);
    if m.is_terminal(state).unwrap() {
        return Ok(());
    }
    let expected = minimax(&mut m, Model::of(net), role, state, depth);
    for (table, ordering) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut s = scrambled(net, role, options(table, ordering, depth));
        let found = s.search(state, Instant::now() + Duration::from_secs(600)).unwrap();
        prop_assert_eq!((found.value * 1000.0).round() as i32, expected, "table {} ordering {}", table, ordering);
        prop_assert!(found.depth == depth || found.solved, "depth {} of {}", found.depth, depth);
        let legal = m.legal_moves(state, role).unwrap();
        prop_assert!(legal.contains(&found.best));
    }
    Ok(())
}

/// Checks every switch combination's [`Searcher::move_values`] against minimax, deepening
/// through `1..=depth`: the moves within `margin` goal points of the best get their exact
/// value, the others a bound between their value and that range.
fn move_values_agree(
    net: &Net,
    state: &PropnetState,
    role: usize,
    depth: u32,
    margin: f64,
) -> Result<(), TestCaseError> {
    let mut m = PropnetMachine::new(net);
    if m.is_terminal(state).unwrap() || (0..net.roles.len()).any(|r| m.legal_moves(state, r).unwrap().is_empty()) {
        return Ok(());
    }
    let expected = minimax_moves(&mut m, Model::of(net), role, state, depth);
    let top = expected.iter().copied().max().unwrap();
    let safe = top - (margin * 1000.0).round() as i32;
    for (table, ordering) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut s = scrambled(net, role, options(table, ordering, depth));
        let far = Instant::now() + Duration::from_secs(600);
        let found = s.move_values(state, 1..=depth, margin, far).unwrap().expect("every iteration completes");
        prop_assert_eq!(found.len(), expected.len());
        for (i, (&v, &e)) in found.iter().zip(&expected).enumerate() {
            let v = (v * 1000.0).round() as i32;
            if e >= safe {
                prop_assert_eq!(v, e, "move {} exact (table {} ordering {})", i, table, ordering);
            } else {
                prop_assert!(e <= v && v < safe, "move {}: {} bounds {} below {}", i, v, e, safe);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn alpha_beta_is_minimax_on_tictactoe(steps in 0usize..7, seed: u64, role in 0usize..2, depth in 1u32..5) {
        let net = bundled("tictactoe");
        agrees_with_minimax(&net, &random_state(&net, steps, seed), role, depth)?;
    }

    #[test]
    fn alpha_beta_is_minimax_on_connect_four(steps in 0usize..30, seed: u64, role in 0usize..2, depth in 1u32..4) {
        let net = bundled("connectfour");
        agrees_with_minimax(&net, &random_state(&net, steps, seed), role, depth)?;
    }

    #[test]
    fn paranoid_is_minimax_with_simultaneous_moves(roles in 2usize..4, steps in 0usize..2, seed: u64, depth in 1u32..3) {
        let net = picks(roles);
        let role = (seed % roles as u64) as usize;
        agrees_with_minimax(&net, &random_state(&net, steps, seed), role, depth)?;
    }

    #[test]
    fn move_values_are_minimax_within_the_margin(steps in 0usize..30, seed: u64, role in 0usize..2, depth in 1u32..4, margin in prop::sample::select(vec![0.0, 5.0, 1000.0])) {
        let net = bundled("connectfour");
        move_values_agree(&net, &random_state(&net, steps, seed), role, depth, margin)?;
    }

    #[test]
    fn move_values_are_minimax_with_simultaneous_moves(roles in 2usize..4, steps in 0usize..2, seed: u64, depth in 1u32..3, margin in prop::sample::select(vec![0.0, 20.0])) {
        let net = picks(roles);
        let role = (seed % roles as u64) as usize;
        move_values_agree(&net, &random_state(&net, steps, seed), role, depth, margin)?;
    }
}

#[test]
fn two_player_games_are_proved_zero_sum_and_others_are_not() {
    assert_eq!(Model::of(&bundled("tictactoe")), Model::Minimax { sum: 100 });
    // Here `(goal red 0)` and `(goal black 100)` differ while the board is open: the proof has
    // to look at terminal states only.
    assert_eq!(Model::of(&bundled("connectfour")), Model::Minimax { sum: 100 });
    // Both players can score 50 or 100 at once in this one.
    assert_eq!(Model::of(&picks(2)), Model::Paranoid);
    assert_eq!(Model::of(&picks(3)), Model::Paranoid);
    assert_eq!(Model::of(&bundled("buttonsandlights")), Model::Paranoid);
}

#[test]
fn a_move_is_ready_when_the_deadline_has_already_passed() {
    let net = bundled("connectfour");
    let mut s = searcher(&net, 0, AlphaBetaConfig::default());
    let mut m = PropnetMachine::new(&net);
    let state = m.initial_state();
    let found = s.search(&state, Instant::now() - Duration::from_millis(1)).unwrap();
    assert_eq!(found.depth, 0);
    assert!(m.legal_moves(&state, 0).unwrap().contains(&found.best));
}

#[test]
fn tictactoe_is_solved_as_a_draw_from_either_side() {
    let net = bundled("tictactoe");
    let state = PropnetMachine::new(&net).initial_state();
    for role in 0..2 {
        let mut s = searcher(&net, role, AlphaBetaConfig::default());
        let found = s.search(&state, Instant::now() + Duration::from_secs(600)).unwrap();
        assert!(found.solved, "{found:?}");
        assert_eq!(found.value, 50.0);
    }
}

#[test]
fn the_nearest_win_is_preferred() {
    // x (1 1) (2 2), o (1 2) (2 1), x to move: (3 3) wins now, and (1 3) or (3 1) win two plies
    // later with a double threat, so only the ply bias separates them.
    let net = bundled("tictactoe");
    let mut m = PropnetMachine::new(&net);
    let mut state = m.initial_state();
    for (x, o) in [("(mark 1 1)", "noop"), ("noop", "(mark 1 2)"), ("(mark 2 2)", "noop"), ("noop", "(mark 2 1)")] {
        let joint = [m.find_move(0, x).unwrap(), m.find_move(1, o).unwrap()];
        state = m.next_state(&state, &joint).unwrap();
    }
    let mut s = searcher(&net, 0, AlphaBetaConfig::default());
    let found = s.search(&state, Instant::now() + Duration::from_secs(600)).unwrap();
    assert_eq!(m.format_move(&found.best), "(mark 3 3)");
    assert!(found.solved && found.value == 99.999, "{found:?}");
}

#[test]
fn an_unknown_role_is_an_error() {
    let net = bundled("tictactoe");
    let m = PropnetMachine::new(&net);
    let ev = GoalEvaluator;
    assert!(matches!(
        Searcher::new(m, 2, Model::Paranoid, ev, AlphaBetaConfig::default()),
        Err(SearchError::NoSuchRole(2))
    ));
}

#[test]
fn the_reasoner_is_searched_like_the_propnet() {
    let game = games::find("tictactoe").expect("bundled");
    let (desc, _) = gdl::load(game.file, game.text).expect("valid");
    // x to move with (1 1) and (1 2) taken, o having (2 1) and (2 2): (1 3) wins at once.
    let mut m = reasoner::Reasoner::new(&desc);
    let mut state = m.initial_state();
    for step in [["(mark 1 1)", "noop"], ["noop", "(mark 2 1)"], ["(mark 1 2)", "noop"], ["noop", "(mark 2 2)"]] {
        let joint: Vec<_> = (0..2)
            .map(|r| m.legal_moves(&state, r).unwrap().into_iter().find(|mv| m.format_move(mv) == step[r]).unwrap())
            .collect();
        state = m.next_state(&state, &joint).unwrap();
    }
    let mut s = Searcher::new(m, 0, Model::Paranoid, GoalEvaluator, AlphaBetaConfig::default()).expect("role exists");
    let found = s.search(&state, Instant::now() + Duration::from_secs(600)).unwrap();
    assert_eq!(s.m.format_move(&found.best), "(mark 1 3)");
    assert!(found.solved, "{found:?}");
}

/// Says nothing at the depth limit, and calls a state decided, x winning, once x holds the
/// centre: not true of tic-tac-toe, which is what shows the search took the evaluator's word.
struct CentreDecides {
    centre: usize,
}

impl Evaluator for CentreDecides {
    fn evaluate(&mut self, _: &mut PropnetMachine, _: &PropnetState) -> Vec<f64> {
        vec![UNKNOWN; 2]
    }

    fn decided(&mut self, _: &mut PropnetMachine, state: &PropnetState) -> Option<Vec<u32>> {
        let held = state.words()[self.centre / 64] >> (self.centre % 64) & 1 == 1;
        held.then(|| vec![100, 0])
    }
}

#[test]
fn a_decided_state_ends_its_line_with_exact_scores() {
    let net = bundled("tictactoe");
    let centre = net.bases.iter().position(|b| b.name == "(cell 2 2 x)").expect("a cell");
    let mut m = PropnetMachine::new(&net);
    let state = m.initial_state();
    let options = AlphaBetaConfig { max_depth: 1, ..AlphaBetaConfig::default() };
    let mut s =
        Searcher::new(PropnetMachine::new(&net), 0, Model::of(&net), CentreDecides { centre }, options).expect("role");
    let found = s.search(&state, Instant::now() + Duration::from_secs(600)).unwrap();
    // One ply deep, every other move is a leaf worth 50; the centre is a decided win, one ply off.
    assert_eq!(m.format_move(&found.best), "(mark 2 2)");
    assert_eq!(found.value, 99.999, "{found:?}");
    // Below a decided state nothing is searched: o's reply cannot change it.
    let after =
        m.next_state(&state, &[m.find_move(0, "(mark 2 2)").unwrap(), m.find_move(1, "noop").unwrap()]).unwrap();
    let mut s =
        Searcher::new(PropnetMachine::new(&net), 1, Model::of(&net), CentreDecides { centre }, options).expect("role");
    let found = s.search(&after, Instant::now() + Duration::from_secs(600)).unwrap();
    assert!(found.solved && found.value < 0.01, "every o move stays in a decided loss: {found:?}");
}

#[test]
fn a_line_the_rules_score_twice_is_worth_its_higher_value() {
    let net = net_of("ambiguous.kif", testkit::AMBIGUOUS_LINE);
    let m = PropnetMachine::new(&net);
    let state = PropnetMachine::new(&net).initial_state();
    let mut s = searcher(&net, 1, AlphaBetaConfig::default());
    let found = s.search(&state, Instant::now() + Duration::from_secs(600)).unwrap();
    assert_eq!(m.format_move(&found.best), "line");
    assert!(found.solved && found.value > 99.0, "{found:?}");
}
