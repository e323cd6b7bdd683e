//! Where the shared test data lives: the public GDL corpus (`games/`) and the recordings of the
//! reference prover (`reference/`), kept beside the repository in `../shared`. Every crate's tests
//! and benchmarks find it here, so they agree on where it is and on what happens without it.

use std::path::{Path, PathBuf};

/// The shared folder, found from a crate's manifest directory (`crates/NAME`), if it holds both
/// `games/` and `reference/`. Without it, the caller's check (`what`) is skipped with a loud
/// warning, except under CI (the `CI` environment variable set), where this panics.
pub fn locate(manifest_dir: &str, what: &str) -> Option<PathBuf> {
    let dir = Path::new(manifest_dir).join("../../../shared");
    if dir.join("games").is_dir() && dir.join("reference").is_dir() {
        return Some(dir);
    }
    eprintln!("WARNING: ../shared (corpus and reference data) not found: {what} NOT checked");
    assert!(std::env::var_os("CI").is_none(), "CI must have ../shared/games and ../shared/reference");
    None
}

/// The files directly in `dir` whose names end in `.ext`, sorted.
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == ext));
    files.sort();
    files
}

/// A game file's text; stray non-UTF-8 bytes (found in comments of some published games) are
/// replaced, since they never matter.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    Ok(String::from_utf8_lossy(&std::fs::read(path)?).into_owned())
}
