//! The propnet machine must agree with the GGP-Base reference prover on every recorded game
//! whose net builds within 10 s: every state, legal move list, terminal flag, goal value and perft
//! count in `../shared/reference` and `../shared/more/reference`. Games whose net does not build
//! fall back to the reasoner; they must be exactly `testkit::shared::WITHOUT_PROPNET`.
//!
//! `PROPNET_GAME=stem` restricts the run to one game; `PROPNET_RAW=1` skips the optimiser.

use machine::{conform, ConformOptions};
use propnet::runtime::PropnetMachine;
use std::path::Path;
use std::time::{Duration, Instant};

/// The game's net, optimised unless `PROPNET_RAW` is set, or why it could not be built. Build
/// speed is measured by benchmarks, not here: the generous deadline only catches a runaway. A game
/// expected not to build only has to fail within the 10 s a start clock allows.
fn net(path: &Path) -> Result<propnet::Net, propnet::Error> {
    let text = testkit::shared::read_text(path).expect("readable game");
    let (desc, _) = gdl::load(&path.display().to_string(), &text).expect("corpus game validates");
    let secs = if testkit::shared::without_propnet(path) { 10 } else { 60 };
    let limits = propnet::Limits { deadline: Some(Instant::now() + Duration::from_secs(secs)), ..Default::default() };
    let net = propnet::build(&desc, &limits)?;
    if std::env::var_os("PROPNET_RAW").is_some() {
        return Ok(net);
    }
    Ok(propnet::optimize::optimize(&net).0)
}

#[test]
fn propnet_matches_the_reference_prover_on_every_game_that_builds() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "propnet conformance") else { return };
    let only = std::env::var("PROPNET_GAME").ok();
    let files = testkit::shared::recordings(&shared);
    assert!(files.len() >= 80, "expected the whole reference set, found {}", files.len());
    let (mut failures, mut fallbacks, mut build_errors) = (Vec::new(), Vec::new(), Vec::new());
    let (mut checked, mut games) = (0, 0);
    for (file, game) in &files {
        let stem = testkit::shared::stem(game);
        if only.as_ref().is_some_and(|o| *o != stem) {
            continue;
        }
        let start = Instant::now();
        let net = match net(game) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("{stem}: no propnet ({e}); falls back to the reasoner");
                build_errors.push(stem.clone());
                fallbacks.push(stem);
                continue;
            }
        };
        let mut m = PropnetMachine::new(&net);
        let built = start.elapsed();
        let reference = machine::reference::load(file).expect("reference parses");
        let report = conform(&mut m, &reference, &ConformOptions::default());
        eprintln!("{stem:28} net {built:>9.2?} conform {:>9.2?}  {}", start.elapsed() - built, report.summary());
        checked += report.steps_checked;
        games += 1;
        assert!(report.steps_checked > 0, "{stem}: nothing was compared");
        if !report.is_ok() {
            failures.push(format!("{stem}: {report}"));
        }
    }
    eprintln!("{games} games conformed, {checked} steps checked; fall back to the reasoner: {fallbacks:?}");
    let expected: Vec<&str> = testkit::shared::WITHOUT_PROPNET.iter().map(|(g, _)| *g).collect();
    let unexpected: Vec<&String> = build_errors.iter().filter(|s| !expected.contains(&s.as_str())).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(unexpected.is_empty(), "nets that no longer build: {unexpected:?}");
    if only.is_none() {
        let built: Vec<&&str> = expected.iter().filter(|g| !build_errors.iter().any(|e| e == *g)).collect();
        assert!(built.is_empty(), "nets that build now, so WITHOUT_PROPNET should lose them: {built:?}");
    }
}
