//! Where the shared test data lives: the public GDL corpus (`games/`) and the recordings of the
//! reference prover (`reference/`), kept beside the repository in `../shared`, and a wider corpus
//! of public games laid out the same way in `more/`. Every crate's tests and benchmarks find it
//! here, so they agree on where it is, on what the corpus is, and on what happens without it.

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

/// The corpora under the shared folder, each with `games/` and `reference/`: the one latchkey
/// was first built against, and `more/`, public games chosen to stress an engine.
const CORPORA: [&str; 2] = [".", "more"];

/// The corpus games whose propnet does not build within the grounder's limits, each with what
/// stops it. Corpus tests of the propnet and of what is built on it skip them by name, rather than
/// wait out the limits in every test; the propnet's conformance test checks that exactly these
/// fail, so the list stays true as grounding improves.
pub const WITHOUT_PROPNET: [(&str, &str); 2] = [
    (
        "sudoku",
        "more than 8M atoms, and a net is the wrong tool as written: the goal's helper relation \
         holds for 9 * 8^8 (1.5e8) digit tuples, and each of the 27 lines joins 9 cells of 9 \
         digits (9^9 ground rules per line); the reasoner, goal-directed, plays it",
    ),
    (
        "ruleDepthExponential",
        "more than 24M literals: a stress test whose legality is a conjunction unfolding into \
         2^20 atoms of 20 arguments (built without the caps: 35M edges in 16 s and 1.8 GB, \
         optimised to 83 nodes)",
    ),
];

/// Whether the corpus game at `path` is one of [`WITHOUT_PROPNET`].
pub fn without_propnet(path: &Path) -> bool {
    let stem = stem(path);
    WITHOUT_PROPNET.iter().any(|(g, _)| *g == stem)
}

/// The optimised propnet of the corpus game at `path`, or `None` if it does not build within
/// 30 seconds.
pub fn compile(path: &Path) -> Option<propnet::Net> {
    let text = read_text(path).expect("readable game");
    let (desc, _) = gdl::load(&path.display().to_string(), &text).expect("valid game");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    propnet::compile(&desc, &propnet::Limits { deadline: Some(deadline), ..Default::default() }).ok()
}

/// The description and optimised propnet (default limits) of the corpus game called `stem`,
/// for a test about that one game (`what` and `manifest_dir` as for [`locate`]); `None` to skip
/// the test where the corpus is absent.
pub fn described(manifest_dir: &str, stem: &str, what: &str) -> Option<(gdl::Description, propnet::Net)> {
    let shared = locate(manifest_dir, what)?;
    let path = game(&shared, stem).unwrap_or_else(|| panic!("{stem} in the corpus"));
    let desc = crate::load(stem, &read_text(&path).expect("readable"));
    let net = crate::compile(&desc);
    Some((desc, net))
}

/// The optimised propnet of the corpus game called `stem`, for a test about that one game
/// (`manifest_dir` as for [`locate`]); `None` to skip the test where the corpus is absent.
pub fn net(manifest_dir: &str, stem: &str) -> Option<propnet::Net> {
    let shared = locate(manifest_dir, &format!("a test on {stem}"))?;
    let path = game(&shared, stem).unwrap_or_else(|| panic!("{stem} in the corpus"));
    Some(compile(&path).unwrap_or_else(|| panic!("{stem} has a propnet")))
}

/// Every corpus game, the first corpus's in name order, then the next's.
pub fn games(shared: &Path) -> Vec<PathBuf> {
    CORPORA.iter().flat_map(|c| files(&shared.join(c).join("games"), "kif")).collect()
}

/// Every corpus game but those [`WITHOUT_PROPNET`]: the games tests of the propnet, and of
/// everything built on it, run on.
pub fn games_with_propnet(shared: &Path) -> Vec<PathBuf> {
    games(shared).into_iter().filter(|g| !without_propnet(g)).collect()
}

/// Every reference recording with the game it was recorded from, as (recording, game).
pub fn recordings(shared: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for corpus in CORPORA.map(|c| shared.join(c)) {
        for file in files(&corpus.join("reference"), "jsonl") {
            let game = corpus.join("games").join(format!("{}.kif", stem(&file)));
            out.push((file, game));
        }
    }
    out
}

/// The corpus game called `stem` (its file name without `.kif`), in whichever corpus has it.
pub fn game(shared: &Path, stem: &str) -> Option<PathBuf> {
    CORPORA.iter().map(|c| shared.join(c).join("games").join(format!("{stem}.kif"))).find(|p| p.is_file())
}

/// A game file's name without `.kif`, e.g. `ticTacToe`.
pub fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
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
