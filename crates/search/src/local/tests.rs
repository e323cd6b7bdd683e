//! The local search against a plain exhaustive search on small boards: every win it reports is
//! a forced win on the full game tree.

use super::*;
use analysis::Locality;
use machine::random_trajectory;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::Duration;

/// Whether `role` wins from `state` within `left` of its own moves against every reply, in
/// strictly alternating play, looking at every move. `mover` moved into `state`.
fn forced_win(m: &mut PropnetMachine, state: &PropnetState, role: usize, left: u32, mover: Option<usize>) -> bool {
    if m.is_terminal(state).unwrap() {
        let best = *m.program().goal_values(role).iter().max().unwrap();
        return m.goal_values(state, role).unwrap().contains(&best);
    }
    if left == 0 {
        return false;
    }
    let ours = m.legal_moves(state, role).unwrap();
    let theirs = m.legal_moves(state, 1 - role).unwrap();
    match (ours.len(), theirs.len()) {
        (_, 1) if mover != Some(role) => ours.iter().any(|&mv| {
            let next = m.next_state(state, &joint(role, mv, theirs[0])).unwrap();
            forced_win(m, &next, role, left - 1, Some(role))
        }),
        (1, _) if mover != Some(1 - role) => theirs.iter().all(|&mv| {
            let next = m.next_state(state, &joint(1 - role, mv, ours[0])).unwrap();
            forced_win(m, &next, role, left, Some(1 - role))
        }),
        _ => false,
    }
}

/// A local searcher over `net`, with the locality analysed in full, and its program.
fn searcher(net: &Arc<Net>) -> (LocalSearch, Arc<Program>) {
    let locality = Arc::new(Locality::analyse(net, None).expect("no deadline"));
    let program = Arc::new(Program::new(net));
    (LocalSearch::new(Arc::clone(net), Arc::clone(&program), locality), program)
}

/// Searches `role`'s wins within `depth` own moves from the last states of seeded random games
/// of `net` until `positions` searches have run, and checks every reported win and every move
/// reported decided against [`forced_win`]. Returns the wins and tenuki results seen.
fn check_reported_wins(net: Net, depth: u32, positions: usize) -> (usize, usize) {
    let (mut search, program) = searcher(&Arc::new(net));
    let mut m = PropnetMachine::from_program(program);
    let mut rng = SmallRng::seed_from_u64(3);
    let initial = m.initial_state();
    let (mut checked, mut wins, mut missed, mut tenukis) = (0, 0, 0, 0);
    while checked < positions {
        let trajectory = random_trajectory(&mut m, &initial, &mut rng, 200).unwrap();
        let start = trajectory.len().saturating_sub(7);
        for state in &trajectory[start..trajectory.len() - 1] {
            for role in 0..2 {
                let deadline = Instant::now() + Duration::from_secs(5);
                let found = search.search(state, role, None, depth, deadline).unwrap();
                checked += 1;
                tenukis += usize::from(found.tenuki.is_some());
                if let Some(n) = found.win {
                    wins += 1;
                    assert!(forced_win(&mut m, state, role, n, None), "a false win in {n} for role {role}: {state:?}");
                }
                for &(mv, n) in &found.decided {
                    let who = m.move_role(mv).unwrap();
                    let other = m.legal_moves(state, 1 - who).unwrap()[0];
                    let next = m.next_state(state, &joint(who, mv, other)).unwrap();
                    assert!(
                        forced_win(&mut m, &next, role, n - u32::from(who == role), Some(who)),
                        "move {mv} falsely decided in {n} for role {role}: {state:?}"
                    );
                }
                if found.depth >= 2 && found.win.is_none() && forced_win(&mut m, state, role, 1, None) {
                    missed += 1;
                }
            }
        }
    }
    assert_eq!(missed, 0, "wins in one move the search missed");
    (wins, tenukis)
}

#[test]
fn every_reported_win_is_a_forced_win_on_small_boards() {
    let (wins, tenukis) = check_reported_wins(testkit::bundled("breakthroughsmall").1, 3, 60);
    assert!(wins > 5, "only {wins} wins");
    assert!(tenukis > 0, "no tenuki proved");
}

/// Knights jump, so a move's reach is not its neighbourhood on the board: the regions the
/// search restricts itself to must still leave out only what cannot matter.
#[test]
fn every_reported_win_is_a_forced_win_in_knightthrough() {
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "knightThrough") else { return };
    let (wins, _) = check_reported_wins(net, 2, 40);
    assert!(wins > 5, "only {wins} wins");
}

/// A Breakthrough searcher, its program, and a position where white's pawn on c5 has a free
/// run to the eighth rank with black to move; black's pawns are far from white's home rank and
/// from the pawn.
fn free_run() -> (LocalSearch, Arc<Program>, PropnetState) {
    let net = Arc::new(testkit::bundled("breakthrough").1);
    let (search, program) = searcher(&net);
    let state = testkit::state_of(&net, &testkit::BREAKTHROUGH_FREE_RUN);
    (search, program, state)
}

#[test]
fn a_pawn_with_a_free_run_wins_in_three_whatever_the_defender_plays() {
    let (mut search, program, state) = free_run();
    let deadline = Instant::now() + Duration::from_secs(10);
    let found = search.search(&state, 0, None, 4, deadline).unwrap();
    assert_eq!(found.win, Some(3), "{found:?}");
    let mut m = PropnetMachine::from_program(program);
    assert_eq!(found.decided.len(), m.legal_moves(&state, 1).unwrap().len(), "every reply loses");
    assert!(forced_win(&mut m, &state, 0, 3, None));
    assert!(!forced_win(&mut m, &state, 0, 2, None));
}

#[test]
fn a_search_resumed_by_deepening_proves_what_one_run_proves() {
    let (mut search, _, state) = free_run();
    let deadline = Instant::now() + Duration::from_secs(10);
    let whole = search.search(&state, 0, None, 4, deadline).unwrap();
    let mut resumed = search.search(&state, 0, None, 2, deadline).unwrap();
    assert_eq!((resumed.depth, resumed.win), (2, None));
    while resumed.win.is_none() {
        assert!(search.deepen(&state, 0, None, &mut resumed, deadline).unwrap());
    }
    assert_eq!((resumed.depth, resumed.win, resumed.tenuki), (whole.depth, whole.win, whole.tenuki));
    let sorted = |r: &LocalResult| {
        let mut d = r.decided.clone();
        d.sort_unstable();
        d
    };
    assert_eq!(sorted(&resumed), sorted(&whole));
    assert_eq!(resumed.finished.len(), 3);
    assert!(search.begin(&state, 0).unwrap().is_some_and(|r| !r.to_move));
}

#[test]
fn the_throttle_is_called_as_the_search_goes_and_changes_nothing_it_proves() {
    let (mut search, program) = searcher(&Arc::new(testkit::bundled("breakthroughsmall").1));
    let mut m = PropnetMachine::from_program(program);
    let initial = m.initial_state();
    let deadline = Instant::now() + Duration::from_secs(60);
    // The first endgame position of seeded random games whose search is long enough to throttle.
    let mut rng = SmallRng::seed_from_u64(5);
    let (state, plain) = loop {
        let trajectory = random_trajectory(&mut m, &initial, &mut rng, 200).unwrap();
        let state = trajectory[trajectory.len().saturating_sub(8)].clone();
        let plain = search.search(&state, 0, None, 4, deadline).unwrap();
        if plain.nodes >= 4 * CHECK_EVERY {
            break (state, plain);
        }
    };
    let calls = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = Arc::clone(&calls);
    search.set_throttle(Box::new(move || {
        counter.fetch_add(1, Ordering::Relaxed);
    }));
    let throttled = search.search(&state, 0, None, 4, deadline).unwrap();
    assert_eq!((throttled.depth, throttled.win, &throttled.decided), (plain.depth, plain.win, &plain.decided));
    assert_eq!(throttled.nodes, plain.nodes);
    let calls = calls.load(Ordering::Relaxed);
    assert!(calls >= 1 && calls <= throttled.nodes / CHECK_EVERY, "{calls} calls over {} positions", throttled.nodes);
}
