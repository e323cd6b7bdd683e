//! Soundness of everything the whole analysis reports, with what the proved state invariants
//! let each method see: on random trajectories of every corpus game, no latch, inhibitor, goal
//! inhibitor, composite latch, goal latch, proposition a latch keeps or achievable score range is
//! ever contradicted.

use analysis::{Analysis, AnalysisConfig, Effect, Junction, LatchKind};
use machine::{random_trajectory, StateMachine};
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

#[test]
fn reported_structure_holds_on_random_trajectories_of_every_corpus_game() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "structure soundness") else { return };
    let mut violations = Vec::new();
    let mut games = 0;
    for file in testkit::shared::games_with_propnet(&shared) {
        let text = testkit::shared::read_text(&file).expect("readable game");
        let (desc, _) = gdl::load(&file.display().to_string(), &text).expect("valid game");
        let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(30)), ..Default::default() };
        let Ok(net) = propnet::compile(&desc, &limits) else { continue };
        let options =
            AnalysisConfig { deadline: Some(Instant::now() + Duration::from_secs(10)), ..AnalysisConfig::default() };
        let a = Analysis::run(&net, &desc, &options, &mut |_| {});
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        replay(&name, &net, &a, Duration::from_millis(300), &mut violations);
        games += 1;
    }
    analysis::wait_for_abandoned_proofs();
    assert!(
        violations.is_empty(),
        "{} violations, first: {:#?}",
        violations.len(),
        &violations[..violations.len().min(20)]
    );
    if games > 0 {
        assert!(games >= 50, "only {games} corpus games were checked");
    }
}

/// Checks `a` on random games of `net` for `time`, or until 20 violations are found.
fn replay(game: &str, net: &propnet::Net, a: &Analysis, time: Duration, out: &mut Vec<String>) {
    let groups = a.invariants.as_ref().map_or(&[][..], |i| &i.groups);
    let kept = analysis::kept_by_latches(net, &a.latches, &vec![true; net.bases.len()], groups);
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(11);
    let initial = m.initial_state();
    let deadline = Instant::now() + time;
    while Instant::now() < deadline && out.len() < 20 {
        let trajectory = random_trajectory(&mut m, &initial, &mut rng, 500).expect("random game");
        check(game, net, a, &mut m, &trajectory, out);
        for pair in trajectory.windows(2) {
            for k in &kept {
                let active = holds(&pair[0], k.latch, k.kind) && pair[0].contains(k.base) == k.value;
                if active && pair[1].contains(k.base) != k.value {
                    out.push(format!("{game}: {k:?} is not kept ({})", net.bases[k.base].name));
                }
            }
        }
    }
}

#[test]
fn the_check_catches_what_a_false_invariant_would_let_the_analysis_claim() {
    // Were the turn and a blank cell never to hold together, the turn passing to o would clear
    // the cell: x's turn would inhibit the blank. It does not, and the check says so.
    let (desc, net) = testkit::bundled("tictactoe");
    let a = Analysis::run(&net, &desc, &AnalysisConfig::default(), &mut |_| {});
    let base = |name: &str| net.bases.iter().position(|b| b.name == name).expect("a base");
    let mut wrong = vec![base("(control oplayer)"), base("(cell 1 1 b)")];
    wrong.sort_unstable();
    let groups = [analysis::Group { bases: wrong, exactly_one: false, ..Default::default() }];
    let claimed = Analysis { inhibitors: analysis::structural_inhibitors(&net, &groups, None).0, ..a.clone() };
    let control = base("(control xplayer)");
    assert!(claimed.inhibitors.iter().any(|i| (i.inhibitor, i.target) == (control, base("(cell 1 1 b)"))));
    let mut violations = Vec::new();
    replay("tictactoe", &net, &claimed, Duration::from_millis(300), &mut violations);
    assert!(violations.iter().any(|v| v.contains("(control xplayer) does not inhibit")), "{violations:?}");
    // What the proved groups let it claim holds.
    let mut violations = Vec::new();
    replay("tictactoe", &net, &a, Duration::from_millis(300), &mut violations);
    assert!(violations.is_empty(), "{violations:?}");
}

fn holds(state: &PropnetState, base: usize, kind: LatchKind) -> bool {
    state.contains(base) == (kind == LatchKind::Positive)
}

fn check(
    game: &str,
    net: &propnet::Net,
    a: &Analysis,
    m: &mut PropnetMachine,
    trajectory: &[PropnetState],
    out: &mut Vec<String>,
) {
    let goals: Vec<Vec<Vec<u32>>> = trajectory
        .iter()
        .map(|s| (0..net.roles.len()).map(|r| m.goal_values(s, r).expect("goals")).collect())
        .collect();
    let name = |b: usize| net.bases[b].name.as_str();
    for (t, pair) in trajectory.windows(2).enumerate() {
        let (now, next) = (&pair[0], &pair[1]);
        for l in &a.latches {
            if holds(now, l.base, l.kind) && !holds(next, l.base, l.kind) {
                out.push(format!("{game}: {} is no {:?} latch ({:?})", name(l.base), l.kind, l.method));
            }
        }
        for i in &a.inhibitors {
            if now.contains(i.inhibitor) && next.contains(i.target) {
                out.push(format!("{game}: {} does not inhibit {} ({:?})", name(i.inhibitor), name(i.target), i.method));
            }
        }
        for g in &a.goal_inhibitors {
            let later = if g.when == analysis::When::Now { t } else { t + 1 };
            if now.contains(g.base) && goals[later][g.role].contains(&g.value) {
                out.push(format!("{game}: {} does not rule out goal {} of role {}", name(g.base), g.value, g.role));
            }
        }
        for c in &a.composite {
            let value = |s: &PropnetState| match c.junction {
                Junction::Or => c.bases.iter().any(|&b| s.contains(b)),
                Junction::And => c.bases.iter().all(|&b| s.contains(b)),
            };
            let latched = c.kind == LatchKind::Positive;
            if value(now) == latched && value(next) != latched {
                out.push(format!("{game}: composite latch violated: {c:?}"));
            }
        }
    }
    let last = trajectory.len() - 1;
    for (t, state) in trajectory.iter().enumerate().take(last) {
        for g in &a.goals.latches {
            if !holds(state, g.base, g.kind) {
                continue;
            }
            for later in &goals[t + 1..] {
                let has = later[g.role].contains(&g.value);
                if has != (g.effect == Effect::Guarantees) {
                    out.push(format!("{game}: goal latch violated at step {t}: {g:?} ({})", name(g.base)));
                    break;
                }
            }
        }
        // The final score of a finished game lies in every earlier state's achievable range.
        if m.is_terminal(&trajectory[last]).expect("terminal") {
            for (r, range) in a.goals.ranges(state.words()).into_iter().enumerate() {
                let score = goals[last][r].first().copied();
                let inside = match (range, score) {
                    (Some(range), Some(s)) => range.min <= s && s <= range.max,
                    (None, _) => false,
                    (_, None) => true,
                };
                if !inside {
                    out.push(format!("{game}: role {r} scored {score:?} outside {range:?} predicted at step {t}"));
                }
            }
        }
    }
}
