//! The reasoner must agree with the GGP-Base reference prover on every recorded game: every
//! state, legal move list, terminal flag, goal value and perft count in `../shared/reference` and
//! `../shared/more/reference`.

use machine::{conform, ConformOptions};
use reasoner::Reasoner;
use std::path::Path;

fn load(path: &Path) -> Reasoner {
    let text = testkit::shared::read_text(path).expect("readable game");
    let (desc, _) = gdl::load(&path.display().to_string(), &text).expect("corpus game validates");
    Reasoner::new(&desc)
}

#[test]
fn reasoner_matches_the_reference_prover_on_every_game() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "reasoner conformance") else { return };
    let files = testkit::shared::recordings(&shared);
    assert!(files.len() >= 80, "expected the whole reference set, found {}", files.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for (file, game) in &files {
        let stem = testkit::shared::stem(game);
        let reference = machine::reference::load(file).expect("reference parses");
        let mut m = load(game);
        let report = conform(&mut m, &reference, &ConformOptions::default());
        checked += report.steps_checked;
        assert!(report.steps_checked > 0, "{stem}: nothing was compared");
        if !report.is_ok() {
            failures.push(format!("{stem}: {report}"));
        }
    }
    eprintln!("{} reference files, {checked} steps checked", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
