//! Every game of the public corpus (`../shared/games`) must parse and validate without errors.

use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/games");
    dir.is_dir().then_some(dir)
}

fn kif_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable corpus dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "kif") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_corpus_game_validates() {
    let Some(dir) = corpus_dir() else {
        assert!(std::env::var_os("CI").is_none(), "the corpus ../shared/games is missing, and CI needs it");
        eprintln!("WARNING: ../shared/games not found; corpus validation skipped");
        return;
    };
    let files = kif_files(&dir);
    assert!(files.len() >= 50, "expected the whole corpus, found {} files", files.len());
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
