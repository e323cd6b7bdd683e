//! Games bundled with latchkey (the `games/` folder at the top of the repository), embedded in the
//! binary so that every command accepts a bare name such as `tictactoe`.

#![warn(missing_docs)]

/// A bundled game: its name and its GDL text.
#[derive(Debug, Clone, Copy)]
pub struct Bundled {
    /// The name a user types, lower case (also the file stem in `games/`).
    pub name: &'static str,
    /// The file name in `games/`, used in error messages.
    pub file: &'static str,
    /// The GDL rules.
    pub text: &'static str,
}

macro_rules! bundled {
    ($($name:literal),* $(,)?) => {
        &[$(Bundled {
            name: $name,
            file: concat!("games/", $name, ".kif"),
            text: include_str!(concat!("../../../games/", $name, ".kif")),
        }),*]
    };
}

/// Every bundled game, by name.
pub const ALL: &[Bundled] = bundled![
    "tictactoe",
    "dualtictactoe",
    "tallytictactoe",
    "connectfour",
    "buttonsandlights",
    "multiplebuttonsandlights",
    "fadinglights",
    "untwistycorridor",
    "eightpuzzle",
    "fifteenpuzzle",
    "breakthrough",
    "breakthroughsmall",
];

/// The bundled game called `name` (case-insensitive), if there is one.
pub fn find(name: &str) -> Option<&'static Bundled> {
    ALL.iter().find(|g| g.name.eq_ignore_ascii_case(name))
}
