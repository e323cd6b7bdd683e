//! The solver end to end: the bundled 8-puzzle's optimal 20 moves, guidance that reorders but
//! never changes the result, a plan from a search cut short, and every single-player corpus game
//! under a short deadline, each plan replayed on the reasoner; the same optimum with irrelevant
//! factors left aside as without, and that trying one factor at a time finds a real plan.

mod common;

use std::time::{Duration, Instant};

#[test]
fn the_eight_puzzle_is_solved_in_its_optimal_20_moves() {
    let (desc, net) = common::bundled("eightpuzzle");
    let goals = common::goal_latches(&net);
    let solution =
        search::solve(&net, search::SolveConfig { goals: Some(&goals), ..Default::default() }).expect("solves");
    assert_eq!((solution.score, solution.optimal, solution.plan.len()), (Some(100), true, 20));
    assert_eq!(common::replay(&desc, &solution.plan), Some(100));
}

#[test]
fn guidance_orders_siblings_without_changing_the_optimum() {
    let (desc, net) = common::bundled("eightpuzzle");
    let mut calls = 0u64;
    // Prefers states whose first base propositions are set: arbitrary, but not uniform.
    let mut guide = |s: &propnet::PropnetState| {
        calls += 1;
        s.words()[0].count_ones() as f64
    };
    let solution =
        search::solve(&net, search::SolveConfig { guidance: Some(&mut guide), ..Default::default() }).expect("solves");
    assert_eq!((solution.score, solution.optimal, solution.plan.len()), (Some(100), true, 20));
    assert_eq!(common::replay(&desc, &solution.plan), Some(100));
    assert!(calls > 0);
}

#[test]
fn a_search_cut_short_still_returns_the_best_plan_it_found() {
    let (desc, net) = common::bundled("fifteenpuzzle");
    let deadline = Some(Instant::now() + Duration::from_millis(300));
    let solution = search::solve(&net, search::SolveConfig { deadline, ..Default::default() }).expect("solves");
    assert!(!solution.optimal, "40 moves are not proved in 0.3 s");
    let score = solution.score.expect("the first descent reaches a terminal state");
    assert_eq!(common::replay(&desc, &solution.plan), Some(score));
}

#[test]
fn every_single_player_corpus_game_gives_a_plan_that_replays_to_its_score() {
    let puzzles = common::corpus_puzzles("the solver on corpus games");
    let mut proved = 0;
    for (file, desc, net) in &puzzles {
        let goals = common::goal_latches(net);
        let deadline = Some(Instant::now() + Duration::from_millis(500));
        let solution = search::solve(net, search::SolveConfig { goals: Some(&goals), deadline, ..Default::default() })
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        if let Some(score) = solution.score {
            assert_eq!(common::replay(desc, &solution.plan), Some(score), "{file}: {:?}", solution.plan);
        }
        proved += usize::from(solution.optimal);
    }
    assert!(puzzles.is_empty() || proved >= 8, "only {proved} of {} proved optimal", puzzles.len());
}

#[test]
fn leaving_irrelevant_factors_aside_finds_the_same_optimum_with_fewer_nodes() {
    let (desc, net) = common::bundled("multiplebuttonsandlights");
    let goals = common::goal_latches(&net);
    let factors = analysis::Factors::discover(&net, None).expect("no deadline");
    assert!(factors.prunable());
    let solve = |factors| {
        search::solve(&net, search::SolveConfig { goals: Some(&goals), factors, ..Default::default() }).expect("solves")
    };
    let (whole, factored) = (solve(None), solve(Some(&factors)));
    assert_eq!((whole.score, whole.optimal, whole.plan.len()), (Some(100), true, 6));
    assert_eq!((factored.score, factored.optimal, factored.plan.len()), (Some(100), true, 6));
    assert_eq!(common::replay(&desc, &factored.plan), Some(100));
    assert!(factored.stats.nodes * 4 < whole.stats.nodes, "{} vs {}", factored.stats.nodes, whole.stats.nodes);
    // Factors wrongly called irrelevant lose the optimum: the comparison would catch them.
    let mut blind = factors.clone();
    blind.factors.iter_mut().for_each(|f| (f.terminal, f.goals) = (false, vec![false]));
    assert_eq!(solve(Some(&blind)).score, Some(0));
}

#[test]
fn a_puzzle_of_several_panels_is_solved_one_panel_at_a_time_with_fewer_nodes() {
    let (desc, net) = common::bundled("fadinglights");
    let goals = common::goal_latches(&net);
    let factors = analysis::Factors::discover(&net, None).expect("no deadline");
    assert_eq!((factors.factors.len(), factors.relevant().len()), (4, 4));
    let solve = |factors| {
        search::solve(&net, search::SolveConfig { goals: Some(&goals), factors, ..Default::default() }).expect("solves")
    };
    let (whole, factored) = (solve(None), solve(Some(&factors)));
    assert_eq!((whole.score, whole.optimal, whole.plan.len()), (Some(100), true, 5));
    assert_eq!((factored.score, factored.one_factor, factored.plan.len()), (Some(100), true, 5));
    assert!(!factored.optimal, "a plan of one factor is not proved the shortest");
    assert!(factored.plan.iter().all(|mv| mv.starts_with("(press d ")), "{:?}", factored.plan);
    assert_eq!(common::replay(&desc, &factored.plan), Some(100));
    assert!(factored.stats.nodes * 10 < whole.stats.nodes, "{} vs {}", factored.stats.nodes, whole.stats.nodes);
}

#[test]
fn every_single_player_corpus_game_scores_the_same_with_factors() {
    for (file, desc, net) in &common::corpus_puzzles("factored solving on corpus games") {
        let Some(factors) = analysis::Factors::discover(net, Some(Instant::now() + Duration::from_secs(5))) else {
            continue;
        };
        if !factors.useful() {
            continue;
        }
        let goals = common::goal_latches(net);
        let solve = |factors| {
            let deadline = Some(Instant::now() + Duration::from_secs(5));
            search::solve(net, search::SolveConfig { goals: Some(&goals), factors, deadline, ..Default::default() })
                .expect("solves")
        };
        let (whole, factored) = (solve(None), solve(Some(&factors)));
        if let Some(score) = factored.score {
            assert_eq!(common::replay(desc, &factored.plan), Some(score), "{file}");
        }
        if whole.optimal && (factored.optimal || factored.one_factor) {
            assert_eq!(whole.score, factored.score, "{file}");
            assert!(whole.plan.len() <= factored.plan.len(), "{file}");
            if factored.optimal {
                assert_eq!(whole.plan.len(), factored.plan.len(), "{file}");
            }
        }
    }
}
