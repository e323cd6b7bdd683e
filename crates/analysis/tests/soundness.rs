//! Soundness: no latch reported on any corpus game is ever violated along random trajectories.

use machine::{random_trajectory, StateMachine};
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

#[test]
fn reported_latches_hold_on_random_trajectories_of_every_corpus_game() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "latch soundness") else { return };
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in testkit::shared::games_with_propnet(&shared) {
        let text = testkit::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("valid game");
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(30)), ..Default::default() };
        let Ok(net) = propnet::compile(&desc, &limits) else { continue };
        let mut latches = analysis::structural_latches(&net);
        latches.extend(analysis::exact_latches(&net, 16, &[]));
        let mut m = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(7);
        let initial = m.initial_state();
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            for pair in random_trajectory(&mut m, &initial, &mut rng, 500).expect("random game").windows(2) {
                let (before, after) = (&pair[0], &pair[1]);
                for l in &latches {
                    let broken = match l.kind {
                        analysis::LatchKind::Positive => before.contains(l.base) && !after.contains(l.base),
                        analysis::LatchKind::Negative => !before.contains(l.base) && after.contains(l.base),
                    };
                    if broken {
                        violations.push(format!("{}: {l:?}", file.display()));
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "too few transitions checked: {checked}");
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The groups of `found` that the state whose true bases are `holds` breaks, in words.
fn broken(net: &propnet::Net, found: &analysis::Exclusive, holds: &dyn Fn(usize) -> bool) -> Vec<String> {
    found
        .groups
        .iter()
        .filter(|g| {
            let n = g.literals().filter(|&(b, counts)| holds(b) == counts).count();
            n > 1 || (n == 0 && g.exactly_one)
        })
        .map(|g| {
            format!(
                "{:?} exactly one: {}, implies: {}",
                g.bases.iter().map(|&b| &net.bases[b].name).collect::<Vec<_>>(),
                g.exactly_one,
                g.implies
            )
        })
        .collect()
}

#[test]
fn proved_invariants_hold_on_reference_and_random_trajectories_of_every_corpus_game() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "invariant soundness") else { return };
    let (mut violations, mut states, mut groups, mut implications) = (Vec::new(), 0usize, 0usize, 0usize);
    for (recording, file) in testkit::shared::recordings(&shared) {
        if testkit::shared::without_propnet(&file) {
            continue;
        }
        let Some(net) = testkit::shared::compile(&file) else { continue };
        let found = analysis::Exclusive::discover(&net, Some(Instant::now() + Duration::from_secs(3)), 11);
        groups += found.groups.len();
        implications += found.groups.iter().filter(|g| g.implies).count();
        let index: std::collections::HashMap<&str, usize> =
            net.bases.iter().enumerate().map(|(i, b)| (b.name.as_str(), i)).collect();
        // Every state the reference prover recorded.
        let reference = machine::reference::load(&recording).expect("a reference file");
        for t in &reference.trajectories {
            for state in t.steps.iter().map(|s| &s.state).chain([&t.end.state]) {
                let mut on = vec![false; net.bases.len()];
                for name in state {
                    if let Some(&b) = index.get(name.as_str()) {
                        on[b] = true;
                    }
                }
                for v in broken(&net, &found, &|b| on[b]) {
                    violations.push(format!("{}: {v}", recording.display()));
                }
                states += 1;
            }
        }
        // And random games of another seed than the sampling's.
        let mut m = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(99);
        let initial = m.initial_state();
        for _ in 0..20 {
            for s in random_trajectory(&mut m, &initial, &mut rng, 300).expect("random game") {
                for v in broken(&net, &found, &|b| s.contains(b)) {
                    violations.push(format!("{}: {v}", file.display()));
                }
                states += 1;
            }
        }
    }
    assert!(states > 10_000 && groups > 100, "too little checked: {states} states, {groups} groups");
    assert!(implications > 10, "too few implications checked: {implications}");
    violations.dedup();
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_invariant_check_catches_a_false_group() {
    // What the corpus test relies on: a group that play breaks is reported. In tic-tac-toe the
    // blanks of two cells are both true at the start.
    let (_, net) = testkit::bundled("tictactoe");
    let (a, b) = (
        net.bases.iter().position(|x| x.name == "(cell 1 1 b)"),
        net.bases.iter().position(|x| x.name == "(cell 2 2 b)"),
    );
    let wrong = analysis::Exclusive {
        groups: vec![analysis::Group {
            bases: vec![a.unwrap(), b.unwrap()],
            exactly_one: false,
            pair: true,
            ..Default::default()
        }],
        ..Default::default()
    };
    let initial: Vec<usize> = (0..net.bases.len()).filter(|&i| net.bases[i].init).collect();
    assert_eq!(broken(&net, &wrong, &|x| initial.contains(&x)).len(), 1);
    // And an exactly-one group with none true.
    let none = analysis::Exclusive {
        groups: vec![analysis::Group {
            bases: vec![net.bases.iter().position(|x| x.name == "(cell 1 1 x)").unwrap()],
            exactly_one: true,
            ..Default::default()
        }],
        ..Default::default()
    };
    assert_eq!(broken(&net, &none, &|x| initial.contains(&x)).len(), 1);
    // And an implication whose first holds without its second: a blank cell implies a mark.
    let x = net.bases.iter().position(|x| x.name == "(cell 1 1 x)").unwrap();
    let implies = |bases| analysis::Exclusive {
        groups: vec![analysis::Group { bases, implies: true, ..Default::default() }],
        ..Default::default()
    };
    assert_eq!(broken(&net, &implies(vec![a.unwrap(), x]), &|x| initial.contains(&x)).len(), 1);
    assert!(broken(&net, &implies(vec![x, a.unwrap()]), &|x| initial.contains(&x)).is_empty());
}
