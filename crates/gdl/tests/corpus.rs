//! Every game of the public corpora (`../shared/games`, `../shared/more/games`) must parse and
//! validate without errors.

#[test]
fn every_corpus_game_validates() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "corpus validation") else { return };
    let files = testkit::shared::games(&shared);
    assert!(files.len() >= 80, "expected both corpora, found {} files", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).expect("readable game");
        let text = String::from_utf8_lossy(&bytes);
        let name = path.file_name().unwrap().to_string_lossy();
        match gdl::load(&name, &text) {
            Ok((_, warnings)) => {
                for w in warnings {
                    eprintln!("{w}");
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
