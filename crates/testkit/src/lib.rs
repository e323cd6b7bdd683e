//! What latchkey's tests share, so that each is written once: where the corpus beside the
//! repository lives and what it holds ([`shared`]), bundled games loaded and compiled, a naive
//! bottom-up GDL evaluator to check engines against ([`oracle`]), random programs to check them
//! on ([`programs`]), and a directory of a test's own for the files it writes ([`Scratch`]). A
//! dev-dependency only; never part of a build users run.

#![warn(missing_docs)]

pub mod oracle;
pub mod programs;
pub mod shared;

use gdl::Description;
use propnet::{Net, PropnetState};
use std::path::{Path, PathBuf};

/// A validated description of the GDL text `text` (read from `label`), panicking on any error.
pub fn load(label: &str, text: &str) -> Description {
    gdl::load(label, text).unwrap_or_else(|e| panic!("{label} does not load: {e}")).0
}

/// The optimised propnet of `desc`, built with the default limits, panicking if it cannot be.
pub fn compile(desc: &Description) -> Net {
    propnet::compile(desc, &propnet::Limits::default()).unwrap_or_else(|e| panic!("no propnet: {e}"))
}

/// The bundled game `name`'s description and optimised propnet.
pub fn bundled(name: &str) -> (Description, Net) {
    let game = games::find(name).unwrap_or_else(|| panic!("no bundled game {name}"));
    let desc = load(game.file, game.text);
    let net = compile(&desc);
    (desc, net)
}

/// A directory of one test's own under the system's temporary directory, removed with what it
/// holds when dropped, so that tests running at once never share files and leave none behind.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// A new, empty directory.
    pub fn new() -> Scratch {
        Scratch(tempfile::Builder::new().prefix("latchkey-test-").tempdir().expect("a scratch directory"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        self.0.path()
    }

    /// The path of `name` inside the directory (nothing is created).
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// `text` written to the file `name` inside the directory; its path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch::new()
    }
}

/// The state of `net` in which exactly the base propositions named `props` hold, panicking on a
/// name the net has no base proposition for.
pub fn state_of(net: &Net, props: &[&str]) -> PropnetState {
    let index = |p: &str| net.bases.iter().position(|b| b.name == p).unwrap_or_else(|| panic!("no base {p}"));
    PropnetState::from_bases(net.bases.len(), props.iter().map(|p| index(p)))
}

/// A Breakthrough position, black to move, where white's pawn on c5 (just stepped there from
/// c4) has a free run to the eighth rank: black's pawns are far from it and from white's home
/// rank. White wins in three of its own moves whatever black plays.
pub const BREAKTHROUGH_FREE_RUN: [&str; 5] = [
    "(control black)",
    "(cellholds 3 5 white)",
    "(cellholds 1 1 white)",
    "(cellholds 8 7 black)",
    "(cellholds 7 7 black)",
];

/// A one-move game whose rules, as Pentago's do, score black's winning line twice: "100 for a
/// line" and "0 while the board is open", which still holds after the line. Black moves
/// (`line` or `fill`; red passes with `noop`); filling the board instead gives both roles 50.
pub const AMBIGUOUS_LINE: &str = "(role red) (role black) (init open)
    (legal red noop) (legal black line) (legal black fill)
    (<= (next done) (does black ?m))
    (<= (next lined) (does black line))
    (<= (next open) (does black line))
    (<= terminal (true done))
    (<= (goal black 100) (true lined))
    (<= (goal black 0) (true open))
    (<= (goal black 50) (not (true open)))
    (<= (goal red 0) (true lined))
    (<= (goal red 50) (not (true lined)))";
