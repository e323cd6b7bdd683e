//! Goal forms against the goal net on random games they were not confirmed on: every terminal
//! state of fresh random games must get the same goals from every confirmed form as from the
//! net, on every corpus game, and every state a virtual terminal calls decided must end with the
//! scores it names; the same check catches a form that has been tampered with.

use analysis::{FormRule, GoalForm, GoalForms, Tally, Trend};
use machine::{random_trajectory, StateMachine};
use propnet::{Net, PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

/// Fresh random games that end, each as its states and every role's final goal.
fn ended_games(net: &Net, seed: u64, games: usize) -> Vec<(Vec<PropnetState>, Vec<u32>)> {
    let mut m = PropnetMachine::new(net);
    let mut rng = SmallRng::seed_from_u64(seed);
    let initial = m.initial_state();
    let mut out = Vec::new();
    for _ in 0..games {
        let states = random_trajectory(&mut m, &initial, &mut rng, 2000).expect("random game");
        let last = states.last().expect("a state");
        if m.is_terminal(last).expect("terminal") {
            let goals = (0..net.roles.len()).map(|r| m.goal(last, r).expect("goal")).collect();
            out.push((states, goals));
        }
    }
    out
}

/// Terminal states of fresh random games where `form` gives some role a goal the net does not,
/// with the number of terminal states it was asked about.
fn disagreements(net: &Net, form: &GoalForm, games: usize) -> (Vec<String>, usize) {
    let (mut wrong, mut asked) = (Vec::new(), 0);
    for (states, real) in ended_games(net, 0xd1ff, games) {
        let Some(emulated) = form.scores(states[states.len() - 1].words()) else { continue };
        asked += 1;
        if emulated != real {
            wrong.push(format!("{}: emulated {emulated:?}, net {real:?}", form.describe(&net.roles)));
        }
    }
    (wrong, asked)
}

/// States of fresh random games that `forms` call decided with scores other than the game's end
/// gives, with the number of states called decided.
fn wrong_verdicts(net: &Net, forms: &GoalForms, games: usize) -> (Vec<String>, usize) {
    let (mut wrong, mut decided) = (Vec::new(), 0);
    for (states, real) in ended_games(net, 0xdec1, games) {
        for (k, s) in states.iter().enumerate() {
            if let Some(scores) = forms.decided(s.words()) {
                decided += 1;
                if scores != real {
                    let before = states.len() - 1 - k;
                    wrong.push(format!("decided {scores:?} {before} moves before the end, which gave {real:?}"));
                }
            }
        }
    }
    (wrong, decided)
}

/// Steps of fresh random games where a counter of `forms` moves against its proved trend, with
/// the number of steps where a counter with a trend was looked at.
fn against_trend(net: &Net, forms: &GoalForms, games: usize) -> (Vec<String>, usize) {
    let counters: Vec<&Tally> =
        forms.forms.iter().flat_map(|f| &f.tallies).filter(|t| t.trend != Trend::Unknown).collect();
    let (mut wrong, mut looked) = (Vec::new(), 0);
    if counters.is_empty() {
        return (wrong, looked);
    }
    for (states, _) in ended_games(net, 0x7e4d, games) {
        for pair in states.windows(2) {
            for t in &counters {
                let (Some(before), Some(after)) = (t.read(pair[0].words()), t.read(pair[1].words())) else { continue };
                looked += 1;
                let against = match t.trend {
                    Trend::Rises => after < before,
                    _ => after > before,
                };
                if against {
                    wrong.push(format!("{} ({:?}) went from {before} to {after}", t.name, t.trend));
                }
            }
        }
    }
    (wrong, looked)
}

/// Every corpus game with a net, by name.
fn corpus() -> Vec<(String, Net)> {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "goal forms") else { return Vec::new() };
    let games = testkit::shared::games_with_propnet(&shared);
    games.iter().filter_map(|f| Some((testkit::shared::stem(f), testkit::shared::compile(f)?))).collect()
}

/// The goal forms of `net` with what its structural latches give, heuristics included.
fn forms_with_latches(net: &Net) -> GoalForms {
    let mut forms = GoalForms::discover(net, None, 11);
    forms.use_latches(net, &analysis::structural_latches(net), true, None, 11);
    forms
}

#[test]
fn confirmed_forms_agree_with_the_goal_net_on_fresh_random_games_of_every_corpus_game() {
    let mut wrong = Vec::new();
    let mut emulated = Vec::new();
    let games = corpus();
    if games.is_empty() {
        return;
    }
    // The games the blog names, and the counters the corpus holds, are emulated. Their forms
    // are found from a fixed number of sampled games rather than a second's worth, which a
    // loaded machine can leave too few.
    let named = ["reversi", "othello-comp2007", "dotsAndBoxes", "checkers"];
    for (name, net) in games {
        let sampled = |deadline| if named.contains(&name.as_str()) { None } else { Some(deadline) };
        let mut forms = GoalForms::discover(&net, sampled(Instant::now() + Duration::from_secs(1)), 11);
        let latches = analysis::structural_latches(&net);
        forms.use_latches(&net, &latches, true, Some(Instant::now() + Duration::from_secs(1)), 11);
        if forms.emulator().is_some() {
            emulated.push(name.clone());
        }
        for form in &forms.forms {
            let (w, _) = disagreements(&net, form, 200);
            wrong.extend(w.into_iter().map(|w| format!("{name}: {w}")));
        }
        if !forms.deciders.is_empty() {
            let (w, _) = wrong_verdicts(&net, &forms, 100);
            wrong.extend(w.into_iter().map(|w| format!("{name}: {w}")));
        }
        let (w, _) = against_trend(&net, &forms, 50);
        wrong.extend(w.into_iter().map(|w| format!("{name}: {w}")));
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    for game in named {
        assert!(emulated.iter().any(|e| e == game), "{game} not emulated: {emulated:?}");
    }
}

#[test]
fn a_tampered_form_is_caught() {
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "reversi") else { return };
    let forms = GoalForms::discover(&net, None, 11);
    let mut form = forms.emulator().expect("reversi's goals are a comparison of disc counts").clone();
    let (clean, asked) = disagreements(&net, &form, 100);
    assert!(clean.is_empty() && asked > 50, "{clean:?} over {asked}");
    // Swap what being ahead and behind is worth to the first role.
    let FormRule::Comparison { values } = &mut form.rule else { panic!("not a comparison: {:?}", form.rule) };
    values[0].swap(0, 2);
    let (caught, _) = disagreements(&net, &form, 100);
    assert!(caught.len() > 10, "only {} disagreements", caught.len());
}

#[test]
fn dots_and_boxes_is_decided_once_a_player_has_more_than_half_the_boxes() {
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "dotsAndBoxes") else { return };
    let forms = forms_with_latches(&net);
    let decider = forms.deciders.first().expect("a virtual terminal over the boxes");
    assert_eq!(decider.exclusive, 25, "each of the 25 boxes is owned by one player at most");
    let (wrong, decided) = wrong_verdicts(&net, &forms, 100);
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(decided > 100, "only {decided} states decided early");
}

#[test]
fn owning_reversi_corners_is_confirmed_good() {
    let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "reversi") else { return };
    let forms = forms_with_latches(&net);
    let h = forms.latch_heuristics.first().expect("the disc counts hold latches");
    let corners = |role: usize| {
        let mut names: Vec<&str> = h.latches[role].iter().map(|&b| net.bases[b].name.as_str()).collect();
        names.sort_unstable();
        names
    };
    assert_eq!(corners(0), ["(cell 1 1 black)", "(cell 1 8 black)", "(cell 8 1 black)", "(cell 8 8 black)"]);
    assert!(h.confirmed && h.correlation >= h.threshold, "{h:?}");
    // A corner held and none by the other side is a lead of one, worth more than nothing.
    let mut state = vec![0u64; net.bases.len().div_ceil(64)];
    let b = h.latches[0][0];
    state[b / 64] |= 1 << (b % 64);
    assert_eq!((h.lead(&state, 0), h.lead(&state, 1)), (1, -1));
    assert!(h.value(&state, 0) > 0.5 && h.value(&state, 1) < 0.5);
}

#[test]
fn score_counters_are_proved_to_rise_and_piece_counters_to_fall() {
    let trends = |forms: &GoalForms| -> Vec<(String, Trend)> {
        let emulator = forms.emulator().expect("goals emulated by counters");
        emulator.tallies.iter().map(|t| (t.name.clone(), t.trend)).collect()
    };
    let Some(dots) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "dotsAndBoxes") else { return };
    let forms = forms_with_latches(&dots);
    assert!(trends(&forms).iter().all(|(_, t)| *t == Trend::Rises), "{:?}", trends(&forms));
    let Some(checkers) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "checkers") else { return };
    let mut forms = forms_with_latches(&checkers);
    assert!(trends(&forms).iter().all(|(_, t)| *t == Trend::Falls), "{:?}", trends(&forms));
    // The same look at play catches a trend that is claimed the wrong way round.
    let (clean, looked) = against_trend(&checkers, &forms, 20);
    assert!(clean.is_empty() && looked > 100, "{clean:?} over {looked} steps");
    for t in forms.forms.iter_mut().flat_map(|f| f.tallies.iter_mut()).filter(|t| t.trend == Trend::Falls) {
        t.trend = Trend::Rises;
    }
    let (caught, _) = against_trend(&checkers, &forms, 20);
    assert!(!caught.is_empty(), "pieces captured in 20 games, and no counter seen to fall");
}
