//! Rules that are stratified only once ground, as published games write them: a goal value
//! defined through the negation of other values of the same relation, a legal move through the
//! negation of another, a chain through three values. Both engines must accept them and agree on
//! every reachable state, and the goals must be what the rules say.

use machine::StateMachine;
use propnet::PropnetMachine;
use reasoner::Reasoner;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Two lights; one robot toggles one per step for three steps. 100 with both lit, 50 with one,
/// 0 with none, each lower value written as "not a higher one".
const LIGHTS: &str = "
    (role robot)
    (init (step 0))
    (<= (legal robot (toggle ?l)) (light ?l))
    (<= (legal robot wait) (not (legal robot (toggle b))))
    (light a) (light b)
    (<= (next (lit ?l)) (does robot (toggle ?l)) (not (true (lit ?l))))
    (<= (next (lit ?l)) (true (lit ?l)) (not (does robot (toggle ?l))))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (succ 0 1) (succ 1 2) (succ 2 3)
    (<= terminal (true (step 3)))
    (<= (goal robot 100) (true (lit a)) (true (lit b)))
    (<= (goal robot 50) (not (goal robot 100)) (or (true (lit a)) (true (lit b))))
    (<= (goal robot 0) (not (goal robot 100)) (not (goal robot 50)))";

/// Two players claim cells in turn, or pass; whoever holds three of the four wins, the other's
/// value follows from the winner's, and a tie is "neither wins nor loses", with the role as a
/// variable, as tournament games write it.
const CLAIMS: &str = "
    (role red) (role blue)
    (init (control red))
    (cell 1) (cell 2) (cell 3) (cell 4)
    (<= (legal ?r (claim ?c)) (true (control ?r)) (cell ?c) (not (taken ?c)))
    (<= (legal ?r pass) (true (control ?r)))
    (<= (legal ?r noop) (role ?r) (not (true (control ?r))))
    (<= (taken ?c) (true (owns ?r ?c)))
    (<= (next (owns ?r ?c)) (does ?r (claim ?c)))
    (<= (next (owns ?r ?c)) (true (owns ?r ?c)))
    (<= (next (control red)) (true (control blue)))
    (<= (next (control blue)) (true (control red)))
    (<= (more red) (true (owns red ?a)) (true (owns red ?b)) (true (owns red ?c)) (distinct ?a ?b) (distinct ?a ?c) (distinct ?b ?c))
    (<= (more blue) (true (owns blue ?a)) (true (owns blue ?b)) (true (owns blue ?c)) (distinct ?a ?b) (distinct ?a ?c) (distinct ?b ?c))
    (<= (goal ?r 100) (role ?r) (more ?r))
    (<= (goal ?r 0) (role ?r) (other ?r ?o) (goal ?o 100))
    (<= (goal ?r 50) (role ?r) (not (goal ?r 100)) (not (goal ?r 0)))
    (other red blue) (other blue red)
    (<= terminal (not (open)))
    (<= open (cell ?c) (not (taken ?c)))";

/// What a state shows: each role's legal moves, whether it is terminal, each role's goal (if
/// defined), and the next state under every joint move, all printed.
type View = (Vec<BTreeSet<String>>, bool, Vec<Option<u32>>, BTreeMap<Vec<String>, BTreeSet<String>>);

/// Every reachable state of `m`'s game, printed, with what it shows.
fn explore<M: StateMachine>(m: &mut M) -> BTreeMap<BTreeSet<String>, View> {
    let mut seen = BTreeMap::new();
    let initial = m.initial_state();
    let mut queue = VecDeque::from([initial]);
    while let Some(state) = queue.pop_front() {
        let key: BTreeSet<String> = m.state_props(&state).into_iter().collect();
        if seen.contains_key(&key) {
            continue;
        }
        let roles = m.roles().len();
        let terminal = m.is_terminal(&state).expect("terminal");
        let goals = (0..roles).map(|r| m.goal(&state, r).ok()).collect();
        let legal: Vec<Vec<M::Move>> = (0..roles).map(|r| m.legal_moves(&state, r).expect("legal")).collect();
        let printed = legal.iter().map(|l| l.iter().map(|mv| m.format_move(mv)).collect()).collect();
        let mut next = BTreeMap::new();
        if !terminal {
            let mut joint: Vec<Vec<M::Move>> = vec![Vec::new()];
            for l in &legal {
                joint =
                    joint.iter().flat_map(|j| l.iter().map(move |mv| [j.clone(), vec![mv.clone()]].concat())).collect();
            }
            for j in joint {
                let after = m.next_state(&state, &j).expect("next");
                let names = j.iter().map(|mv| m.format_move(mv)).collect();
                next.insert(names, m.state_props(&after).into_iter().collect());
                queue.push_back(after);
            }
        }
        seen.insert(key, (printed, terminal, goals, next));
    }
    seen
}

fn engines(rules: &str) -> (Reasoner, PropnetMachine) {
    let (desc, _) = gdl::load("ground.kif", rules).expect("stratified once ground, so valid");
    let net = propnet::compile(&desc, &propnet::Limits::default()).expect("builds");
    (Reasoner::new(&desc), PropnetMachine::new(&net))
}

#[test]
fn both_engines_agree_on_every_reachable_state_of_ground_stratified_games() {
    for rules in [LIGHTS, CLAIMS] {
        let (mut r, mut p) = engines(rules);
        let (by_reasoner, by_propnet) = (explore(&mut r), explore(&mut p));
        assert!(by_reasoner.len() > 5, "too few states: {}", by_reasoner.len());
        assert_eq!(by_reasoner, by_propnet);
    }
}

#[test]
fn goals_written_as_the_negation_of_other_goals_mean_what_they_say() {
    let (mut r, _) = engines(LIGHTS);
    for (state, (legal, terminal, goals, _)) in explore(&mut r) {
        let lit = ["(lit a)", "(lit b)"].iter().filter(|l| state.contains(**l)).count();
        assert_eq!(goals, vec![Some([0, 50, 100][lit])], "{state:?}");
        // `wait` is legal exactly when toggling b is not, which is never.
        assert!(terminal || !legal[0].contains("wait"), "{state:?}: {legal:?}");
    }
    let (mut r, _) = engines(CLAIMS);
    let ends: Vec<Vec<Option<u32>>> =
        explore(&mut r).into_values().filter(|v| v.1).map(|(_, _, goals, _)| goals).collect();
    assert!(!ends.is_empty());
    for goals in ends {
        // Three or four cells to one side (a winner), or two each (a tie).
        assert!(goals == [Some(100), Some(0)] || goals == [Some(0), Some(100)] || goals == [Some(50), Some(50)]);
    }
}
