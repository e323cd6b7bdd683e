//! Factorisation against random play of every corpus game: a factor none of whose moves is
//! played evolves the same whichever other moves are (a cell may fade on its own, but not
//! differently for a move elsewhere), control evolves the same in every line, and
//! swapping a move of a factor search leaves aside for another (or a pass) changes nothing
//! that matters: the other factors' bases, their legal moves, the end and the goals. The same
//! check catches factors that have been tampered with. (That search finds the same optimum with
//! factors left aside as without is the search crate's test.) Neighbourhoods, the approximate
//! split, must pass the same checks with their shared bases set aside like control, except that
//! those may change in any line.

use analysis::{Factors, Locality};
use machine::StateMachine;
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

/// Up to ten ways random play contradicts `f`, playing for about `budget`.
fn violations(net: &Net, f: &Factors, budget: Duration, seed: u64) -> Vec<String> {
    let mut factor_of_base = vec![None; net.bases.len()];
    for (i, x) in f.factors.iter().enumerate() {
        x.bases.iter().for_each(|&b| factor_of_base[b as usize] = Some(i));
    }
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = m.initial_state();
    let mut control_line: Vec<Vec<bool>> = Vec::new();
    let mut out = Vec::new();
    let deadline = Instant::now() + budget;
    let name = |b: usize| net.bases[b].name.clone();
    while Instant::now() < deadline && out.len() < 10 {
        let mut s = initial.clone();
        for step in 0..500 {
            let control: Vec<bool> = f.control.iter().map(|&b| s.contains(b as usize)).collect();
            match control_line.get(step) {
                Some(seen) if *seen != control => out.push(format!("control differs between lines at step {step}")),
                Some(_) => {}
                None => control_line.push(control),
            }
            if m.is_terminal(&s).expect("terminal") {
                break;
            }
            let legal: Vec<Vec<u32>> = (0..net.roles.len()).map(|r| m.legal_moves(&s, r).expect("legal")).collect();
            if legal.iter().any(Vec::is_empty) {
                break;
            }
            let joint: Vec<u32> = legal.iter().map(|ms| ms[rng.random_range(0..ms.len())]).collect();
            let next = m.next_state(&s, &joint).expect("next");
            let played: Vec<Option<u32>> = joint.iter().map(|&j| f.factor_of[j as usize]).collect();
            for b in (0..net.bases.len()).filter(|&b| s.contains(b) != next.contains(b)) {
                if factor_of_base[b].is_none() && !f.control.contains(&(b as u32)) && !f.shared.contains(&(b as u32)) {
                    out.push(format!("{} is in no factor", name(b)));
                }
            }
            // A factor none of whose moves was played evolves the same whatever else is played.
            for x in (0..f.factors.len()).filter(|&x| !played.contains(&Some(x as u32))) {
                let outside = |r: usize| -> Vec<u32> {
                    legal[r].iter().copied().filter(|&j| f.factor_of[j as usize] != Some(x as u32)).collect()
                };
                let other: Vec<u32> = (0..net.roles.len())
                    .map(|r| {
                        let o = outside(r);
                        o[rng.random_range(0..o.len())]
                    })
                    .collect();
                let alt = m.next_state(&s, &other).expect("next");
                if let Some(&b) =
                    f.factors[x].bases.iter().find(|&&b| next.contains(b as usize) != alt.contains(b as usize))
                {
                    let moves: Vec<&str> = other.iter().map(|&j| net.moves[j as usize].name.as_str()).collect();
                    out.push(format!(
                        "{} differs when {moves:?} is played instead, outside its factor",
                        name(b as usize)
                    ));
                }
            }
            for (r, moves) in legal.iter().enumerate() {
                let stand_in = |j: u32| f.pruned(j) || f.factor_of[j as usize].is_none();
                if !stand_in(joint[r]) {
                    continue;
                }
                let others: Vec<u32> = moves.iter().copied().filter(|&j| j != joint[r] && stand_in(j)).collect();
                let Some(&other) = others.get(rng.random_range(0..others.len().max(1))) else { continue };
                let mut swapped = joint.clone();
                swapped[r] = other;
                let alt = m.next_state(&s, &swapped).expect("next");
                if let Some(why) = what_matters_differs(&mut m, net, f, &factor_of_base, &next, &alt) {
                    out.push(format!(
                        "{} instead of {}: {why}",
                        net.moves[other as usize].name, net.moves[joint[r] as usize].name
                    ));
                }
            }
            s = next;
        }
    }
    out.truncate(10);
    out
}

/// How two states reached by stand-in moves differ in what matters, if they do.
fn what_matters_differs(
    m: &mut PropnetMachine,
    net: &Net,
    f: &Factors,
    factor_of_base: &[Option<usize>],
    a: &PropnetState,
    b: &PropnetState,
) -> Option<String> {
    let kept = |x: Option<usize>| x.is_some_and(|x| !f.factors[x].prunable());
    if let Some(base) = (0..net.bases.len()).find(|&i| kept(factor_of_base[i]) && a.contains(i) != b.contains(i)) {
        return Some(format!("{} differs", net.bases[base].name));
    }
    let end = m.is_terminal(a).expect("terminal");
    if end != m.is_terminal(b).expect("terminal") {
        return Some("one ends the game".to_owned());
    }
    for r in 0..net.roles.len() {
        if end && m.goal(a, r).expect("goal") != m.goal(b, r).expect("goal") {
            return Some(format!("role {r}'s goal differs"));
        }
        let relevant = |s: &PropnetState, m: &mut PropnetMachine| -> Vec<u32> {
            m.legal_moves(s, r).expect("legal").into_iter().filter(|&j| !f.pruned(j)).collect()
        };
        if relevant(a, m) != relevant(b, m) {
            return Some(format!("role {r}'s moves that matter differ"));
        }
    }
    None
}

#[test]
fn factors_and_neighbourhoods_hold_in_random_play_of_every_corpus_game() {
    let mut bad = Vec::new();
    let (mut split, mut near) = (Vec::new(), Vec::new());
    let mut games: Vec<(String, Net)> = ["multiplebuttonsandlights", "fadinglights", "tallytictactoe"]
        .into_iter()
        .map(|name| (name.to_owned(), testkit::bundled(name).1))
        .collect();
    if let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "factors") {
        let files = testkit::shared::games_with_propnet(&shared);
        games.extend(files.iter().filter_map(|f| Some((testkit::shared::stem(f), testkit::shared::compile(f)?))));
    }
    for (name, net) in &games {
        let Some((f, approximate)) = Factors::discover_all(net, Some(Instant::now() + Duration::from_secs(5))) else {
            continue;
        };
        if f.factored() {
            split.push(format!("{name} {}", f.factors.len()));
        }
        for v in violations(net, &f, Duration::from_millis(150), 17) {
            bad.push(format!("{name}: {v}"));
        }
        let Some(f) = approximate else { continue };
        near.push(format!("{name} {} joined by {}", f.factors.len(), f.shared.len()));
        for v in violations(net, &f, Duration::from_millis(300), 5) {
            bad.push(format!("{name} (neighbourhoods): {v}"));
        }
    }
    eprintln!("factored: {split:?}; neighbourhoods: {near:?}");
    assert!(near.iter().any(|g| g.starts_with("tallytictactoe 2")), "{near:?}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn tampered_neighbourhoods_are_caught() {
    let net = testkit::bundled("tallytictactoe").1;
    let l = Locality::analyse(&net, None).expect("no deadline");
    let f = Factors::of(&net, &l).neighbourhoods(&net, &l, None).expect("two neighbourhoods");
    assert!(violations(&net, &f, Duration::from_millis(300), 3).is_empty());
    // Move a cell of one board into the other board's neighbourhood.
    let base = net.bases.iter().position(|b| b.name == "(cell left 2 2 b)").expect("a cell") as u32;
    let mut moved = f.clone();
    let from = moved.factors.iter().position(|x| x.bases.contains(&base)).expect("a neighbourhood");
    moved.factors[from].bases.retain(|&b| b != base);
    moved.factors[1 - from].bases.push(base);
    assert!(!violations(&net, &moved, Duration::from_millis(300), 3).is_empty());
}

#[test]
fn tampered_factors_are_caught() {
    let net = testkit::bundled("multiplebuttonsandlights").1;
    let f = Factors::discover(&net, None).expect("no deadline");
    assert!(violations(&net, &f, Duration::from_millis(300), 3).is_empty());
    // Move a light of the panel that matters into another factor.
    let base = net.bases.iter().position(|b| b.name == "(lit 4 p)").expect("(lit 4 p)") as u32;
    let mut moved = f.clone();
    moved.factors.iter_mut().for_each(|x| x.bases.retain(|&b| b != base));
    let other = moved.factors.iter().position(|x| !x.relevant()).expect("an irrelevant factor");
    moved.factors[other].bases.push(base);
    assert!(!violations(&net, &moved, Duration::from_millis(300), 3).is_empty());
}
