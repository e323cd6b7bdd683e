//! A build given a deadline it cannot meet stops soon after it, its memory freed: the player that
//! abandoned it must not share a core with it for long. Timed generously (the target
//! is 100 ms, measured in BENCHMARKS.md); amazons and merrills took 0.6–0.9 s past a 2 s deadline
//! when dropping the grounder's indexes and terms cost an allocation each.

use std::time::{Duration, Instant};

#[test]
fn groundings_that_run_out_of_time_stop_soon_after_their_deadline() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "grounding deadlines") else { return };
    for (dir, game) in [("games", "amazons"), ("more/games", "merrills")] {
        let path = shared.join(dir).join(format!("{game}.kif"));
        let desc = testkit::load(game, &testkit::shared::read_text(&path).expect("readable"));
        // Half the time the whole grounding takes on this machine, the faster of two groundings
        // (the first pays for fresh memory): late enough that the model holds most of a million
        // atoms, early enough that it cannot finish.
        let whole = (0..2)
            .map(|_| {
                let t = Instant::now();
                propnet::ground::ground(&desc, &propnet::Limits::default()).expect("grounds");
                t.elapsed()
            })
            .min()
            .expect("two groundings");
        let window = whole.mul_f64(0.5);
        let deadline = Instant::now() + window;
        let limits = propnet::Limits { deadline: Some(deadline), ..propnet::Limits::default() };
        let result = propnet::ground::ground(&desc, &limits);
        let late = deadline.elapsed();
        assert!(
            matches!(result, Err(propnet::GroundError::Timeout)),
            "{game} was expected to need more than {window:?}"
        );
        assert!(late < Duration::from_millis(300), "{game}, {window:?}: stopped {late:?} past its deadline");
    }
}

/// A whole build (grounding, building, optimisation, layout) given deadlines that fall in each
/// phase in turn either is done by its deadline or gives up soon after it.
#[test]
fn every_phase_of_a_build_stops_soon_after_its_deadline() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "build deadlines") else { return };
    // Amazons: a million ground rules, an optimisation whose first copy of the net and last
    // renumbering take a tenth of a second each.
    let path = shared.join("games/amazons.kif");
    let desc = testkit::load("amazons", &testkit::shared::read_text(&path).expect("readable"));
    // The whole build, by a deadline, the way a player builds (`propnet::compile`, then the
    // program), with the time each phase took.
    let build = |deadline: Option<Instant>| -> (Option<propnet::Program>, [Duration; 3]) {
        let limits = propnet::Limits { deadline, ..propnet::Limits::default() };
        let passes = propnet::optimize::Passes { deadline, ..Default::default() };
        let t = Instant::now();
        let Ok(net) = propnet::build(&desc, &limits) else { return (None, [t.elapsed(); 3]) };
        let built = t.elapsed();
        let Some((net, _)) = propnet::optimize::optimize_by(net, &passes) else {
            return (None, [built, t.elapsed(), t.elapsed()]);
        };
        let optimised = t.elapsed();
        let program = propnet::Program::within(&net, deadline);
        (program, [built, optimised, t.elapsed()])
    };
    // The phases' times from the faster of two whole builds (the first pays for fresh memory).
    let (first, second) = (build(None), build(None));
    assert!(first.0.is_some() && second.0.is_some());
    let [built, optimised, laid_out] = if second.1[2] < first.1[2] { second.1 } else { first.1 };
    // Deadlines in the middle of the building (the grounding's are tested above), at the start,
    // middle and end of the optimisation, and in the middle of the layout and its native code.
    let mut gave_up = 0;
    let optimising = optimised - built;
    let at_optimisation = [0.02, 0.5, 0.98].map(|f| built + optimising.mul_f64(f));
    for at in [built.mul_f64(0.9)].into_iter().chain(at_optimisation).chain([(optimised + laid_out) / 2]) {
        let deadline = Instant::now() + at;
        let (program, _) = build(Some(deadline));
        let late = deadline.elapsed();
        // The layout gives up with no program; its native code, with the program interpreted.
        gave_up += usize::from(program.is_none_or(|p| p.interpreted_because().is_some()));
        assert!(late < Duration::from_millis(300), "{at:?}: stopped {late:?} past its deadline");
    }
    assert!(gave_up > 0, "no deadline was missed: phases {built:?}, {optimised:?}, {laid_out:?}");
}
