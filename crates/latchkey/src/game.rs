//! Finding and loading the game a command names: a bundled game by name, or a GDL file by path.

use anyhow::{bail, Context, Result};
use gdl::Description;
use std::path::Path;
use std::time::Instant;

/// A game whose rules were read, parsed and validated.
pub struct LoadedGame {
    /// A short name: the bundled name or the file stem.
    pub name: String,
    /// The rules.
    pub desc: Description,
}

/// The GDL text of `spec` (a path to an existing file, else a bundled game's name) and a label
/// for messages.
pub fn read(spec: &str) -> Result<(String, String, String)> {
    let path = Path::new(spec);
    if path.is_file() {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {spec}"))?;
        // Comments in some published games hold stray non-UTF-8 bytes; they never matter.
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| spec.to_owned());
        return Ok((name, spec.to_owned(), text));
    }
    if let Some(g) = games::find(spec) {
        return Ok((g.name.to_owned(), g.file.to_owned(), g.text.to_owned()));
    }
    let names: Vec<&str> = games::ALL.iter().map(|g| g.name).collect();
    bail!("no such file or bundled game: {spec} (bundled games: {})", names.join(", "))
}

/// Reads, parses and validates the game `spec`; fails with every error found and prints the
/// warnings on standard error.
pub fn load(spec: &str) -> Result<LoadedGame> {
    let (name, label, text) = read(spec)?;
    let (desc, warnings) = gdl::load_game(&label, &text)?;
    warn(&warnings);
    Ok(LoadedGame { name, desc })
}

/// Reads the game `spec` and prepares a match of it whose start clock ends at `deadline`, as
/// [`player::Game::prepare`] does (the propnet if it is built in time, else the reasoner);
/// prints the warnings, and a note on standard error when there is no propnet.
pub fn prepare(spec: &str, deadline: Instant) -> Result<player::Game> {
    let (name, label, text) = read(spec)?;
    let (game, warnings) = player::Game::prepare(&name, &label, &text, deadline)?;
    warn(&warnings);
    if let Err(why) = &game.propnet {
        eprintln!("note: no propnet for {name} ({why}); the reasoner plays instead");
    }
    Ok(game)
}

/// Prints the validator's warnings on standard error.
fn warn(warnings: &[gdl::Problem]) {
    for w in warnings {
        eprintln!("{w}");
    }
}
