use machine::StateMachine;
use reasoner::Reasoner;
use std::collections::HashSet;

fn load(name: &str) -> Reasoner {
    let path = format!("{}/../../../shared/games/{name}.kif", env!("CARGO_MANIFEST_DIR"));
    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
    let (desc, _) = gdl::load(name, &text).unwrap();
    Reasoner::new(&desc)
}

#[test]
fn smoke_perft() {
    for (game, expect) in [("ticTacToe", vec![9, 72, 252]), ("connectFour", vec![8, 64, 344]), ("breakthrough", vec![22, 484, 5544])] {
        let mut m = load(game);
        let mut level = vec![m.initial_state()];
        let mut got = vec![];
        for _ in 0..3 {
            let mut next = HashSet::new();
            for s in &level {
                if m.is_terminal(s).unwrap() { continue; }
                let legals: Vec<Vec<_>> = (0..m.roles().len()).map(|r| m.legal_moves(s, r).unwrap()).collect();
                let mut combos = vec![vec![]];
                for l in &legals {
                    combos = combos.iter().flat_map(|c: &Vec<_>| l.iter().map(move |mv| { let mut c = c.clone(); c.push(*mv); c })).collect();
                }
                for c in combos { next.insert(m.next_state(s, &c).unwrap()); }
            }
            got.push(next.len());
            level = next.into_iter().collect();
        }
        assert_eq!(got, expect, "{game}");
    }
}
