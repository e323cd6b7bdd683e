//! The numbers of chapter 16, reproduced to six decimals (the chapter's own precision).

mod common;

use common::{bundled, fixture, play, Game};
use heuristic::{Formulas, FuzzyGoals, Params};
use machine::StateMachine;
use propnet::{PropnetMachine, PropnetState};

fn six(x: f64) -> String {
    format!("{x:.6}")
}

#[test]
fn a_solved_fifteen_puzzle_has_the_degree_tau_to_the_fifteenth() {
    let game = fixture("chapter16_puzzle.kif");
    let mut m = PropnetMachine::new(&game.net);
    let mut state = m.initial_state();
    for tile in 1..=15 {
        let (x, y) = ((tile - 1) % 4 + 1, (tile - 1) / 4 + 1);
        state = play(&mut m, &state, &[&format!("(place {x} {y} {tile})")]);
    }
    assert!(m.is_terminal(&state).unwrap());
    assert_eq!(m.goal(&state, 0).unwrap(), 100);

    // Figure 16.2's conjunction of fifteen true atoms under the product: τ^15 = 0.9^15.
    let mut goals = FuzzyGoals::new(&game.desc, &game.net, &Params::default()).unwrap();
    let degrees = &goals.degrees(&state)[0];
    assert_eq!(degrees.iter().map(|d| d.value).collect::<Vec<_>>(), [0, 100]);
    assert_eq!(six(degrees[1].degree), "0.205891");
    assert_eq!(six(goals.value(&state, 0)), "20.589113");

    // Exercise 5, θ = 0.6: the left fold gives 0.6561 after four conjuncts; 0.59049 after the
    // fifth is lifted to θ, and every later conjunct lifts 0.54 back to θ.
    let with_theta = Params { theta: Some(0.6), ..Params::default() };
    let mut goals = FuzzyGoals::new(&game.desc, &game.net, &with_theta).unwrap();
    assert_eq!(six(goals.degrees(&state)[0][1].degree), "0.600000");
    // Nothing placed: every conjunct is 1 − τ = 0.1, and θ never applies.
    let initial = m.initial_state();
    let nothing = goals.degrees(&initial)[0][1].degree;
    assert!((nothing / (1.0 - 0.9f64).powi(15) - 1.0).abs() < 1e-12, "{nothing}");
}

/// The chapter's Tic-Tac-Toe state: `cells` lists (row, column, mark) for the marked cells.
fn board(game: &Game, cells: &[(usize, usize, char)]) -> PropnetState {
    let mut names = vec!["(control black)".to_owned()];
    for m in 1..=3 {
        for n in 1..=3 {
            let mark = cells.iter().find(|c| (c.0, c.1) == (m, n)).map_or('b', |c| c.2);
            names.push(format!("(cell {m} {n} {mark})"));
        }
    }
    common::state(&game.net, &names)
}

#[test]
fn figure_16_3_is_the_position_with_the_chapters_degrees() {
    // The figure is missing from the text, so every board is searched for the degrees the
    // chapter gives: the two diagonal rule bodies 0.081 and 0.001, diagonal(x) 0.081919,
    // line(x) 0.116296 and line(o) 0.023797.
    let game = fixture("chapter16_tictactoe.kif");
    let params = Params::default();
    let formulas = Formulas::new(&game.desc, &game.net, &propnet::Limits::default()).unwrap();
    let node = |atom: &str| formulas.node(atom).unwrap_or_else(|| panic!("no {atom}")) as usize;
    let (line_x, line_o, diagonal) = (node("(line x)"), node("(line o)"), node("(diagonal x)"));
    let rules: Vec<usize> = formulas.inputs(diagonal as u32).iter().map(|&n| n as usize).collect();
    let mut found = Vec::new();
    for code in 0..3usize.pow(9) {
        let cells: Vec<(usize, usize, char)> =
            (0..9).map(|k| (k / 3 + 1, k % 3 + 1, ['x', 'o', 'b'][code / 3usize.pow(k as u32) % 3])).collect();
        let degree = formulas.evaluate(&board(&game, &cells), &params);
        let shown = [rules[0], rules[1], diagonal, line_x, line_o].map(|n| six(degree[n]));
        if shown == ["0.081000", "0.001000", "0.081919", "0.116296", "0.023797"] {
            found.push(cells.into_iter().filter(|c| c.2 != 'b').collect::<Vec<_>>());
        }
    }
    // x in the corners (1,1) and (3,3), o on an edge cell: the four positions are mirror images
    // that no degree in the chapter tells apart.
    let expected: Vec<Vec<(usize, usize, char)>> = [(1, 2), (2, 1), (2, 3), (3, 2)]
        .into_iter()
        .map(|(m, n)| {
            let mut cells = vec![(1, 1, 'x'), (m, n, 'o'), (3, 3, 'x')];
            cells.sort();
            cells
        })
        .collect();
    let mut found_sorted = found.clone();
    found_sorted.sort();
    assert_eq!(found_sorted, expected);

    let mut goals = FuzzyGoals::compile(&formulas, &params).unwrap();
    for cells in &found {
        let state = board(&game, cells);
        let white = &goals.degrees(&state)[0];
        let by_value = |v: u32| white.iter().find(|d| d.value == v).unwrap().degree;
        assert_eq!(six(by_value(100)), "0.113529");
        assert_eq!(six(by_value(50)), "0.862674");
        assert_eq!(six(goals.value(&state, 0)), "49.589684");
    }
}

/// The first role's heuristic value after each of its opening moves, by the marked cell.
fn openings(game: &Game) -> Vec<((usize, usize), f64)> {
    let mut goals = FuzzyGoals::new(&game.desc, &game.net, &Params::default()).unwrap();
    let mut m = PropnetMachine::new(&game.net);
    let initial = m.initial_state();
    let noop = m.legal_moves(&initial, 1).unwrap()[0];
    let mut out = Vec::new();
    for mv in m.legal_moves(&initial, 0).unwrap() {
        let name = m.format_move(&mv);
        let digits: Vec<usize> = name.chars().filter_map(|c| c.to_digit(10)).map(|d| d as usize).collect();
        let next = m.next_state(&initial, &[mv, noop]).unwrap();
        out.push(((digits[0], digits[1]), goals.value(&next, 0)));
    }
    out
}

#[test]
fn figure_16_4_the_centre_beats_a_corner_beats_an_edge() {
    for game in [fixture("chapter16_tictactoe.kif"), bundled("tictactoe")] {
        let values = openings(&game);
        assert_eq!(values.len(), 9);
        let of = |pick: &dyn Fn(usize, usize) -> bool| -> Vec<f64> {
            values.iter().filter(|((m, n), _)| pick(*m, *n)).map(|(_, v)| *v).collect()
        };
        let centre = of(&|m, n| m == 2 && n == 2)[0];
        let corners = of(&|m, n| m != 2 && n != 2);
        let edges = of(&|m, n| (m == 2) != (n == 2));
        // Symmetric cells have equal values, up to rounding.
        for group in [&corners, &edges] {
            assert!(group.iter().all(|v| (v - group[0]).abs() < 1e-9), "{group:?}");
        }
        assert!(
            centre > corners[0] && corners[0] > edges[0],
            "centre {centre}, corner {}, edge {}",
            corners[0],
            edges[0]
        );
    }
}

#[test]
fn state_independent_atoms_are_crisp_and_only_needed_atoms_are_instantiated() {
    // Chapter 16.4: atoms that do not depend on the state are 1 or 0, not τ or 1 − τ.
    let game = fixture("chapter16_puzzle.kif");
    let formulas = Formulas::new(&game.desc, &game.net, &propnet::Limits::default()).unwrap();
    let initial = PropnetMachine::new(&game.net).initial_state();
    for tau in [0.6, 0.9] {
        let degrees = formulas.evaluate(&initial, &Params { tau, ..Params::default() });
        let of = |atom: &str| degrees[formulas.node(atom).unwrap_or_else(|| panic!("no {atom}")) as usize];
        assert_eq!((of("(tile 7)"), of("(home 3 2 7)")), (1.0, 1.0));
        assert_eq!(of("(true (cell 1 1 1))"), 1.0 - tau);
    }
    // Blank cells hold no tile, so no instance of goal(player, 0) reads them; Tic-Tac-Toe's
    // goals never ask for line(b).
    assert!(formulas.node("(true (cell 1 1 b))").is_none());
    let game = fixture("chapter16_tictactoe.kif");
    let formulas = Formulas::new(&game.desc, &game.net, &propnet::Limits::default()).unwrap();
    assert!(formulas.node("(line x)").is_some() && formulas.node("(line b)").is_none());
}
