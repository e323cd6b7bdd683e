//! The journal: a JSON Lines file whose first line holds the tournament's settings and every
//! other line one finished match, appended and flushed to disk as soon as the match ends. A
//! tournament resumed from its journal skips the matches already there; a last line cut short by
//! a crash is dropped, and its match played again.

use crate::{Format, TournamentError};
use player::MatchRecord;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The shape of the journal's lines; it changes whenever a field changes meaning or goes away.
pub const SCHEMA: u32 = 1;

/// What a tournament was asked to do, as given: enough to run it again from its journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The games as given (paths or bundled names).
    pub games: Vec<String>,
    /// The player specs as given.
    pub players: Vec<String>,
    /// Who plays whom.
    pub format: Format,
    /// Rounds: in each, every pairing plays every game once in every seating.
    pub rounds: usize,
    /// The start clock in seconds.
    pub start_clock: f64,
    /// The play clock in seconds.
    pub play_clock: f64,
    /// The seed of round 0; round r plays with seed + r.
    pub seed: u64,
    /// The SPRT that stops each pairing, if any.
    pub sprt: Option<stats::Sprt>,
}

impl Settings {
    /// The clocks as durations, or why the seconds given are not a clock.
    pub fn clocks(&self) -> Result<player::Clocks, TournamentError> {
        let clock = |secs: f64, what: &str| {
            std::time::Duration::try_from_secs_f64(secs)
                .map_err(|_| TournamentError::Setup(format!("bad {what} {secs}")))
        };
        Ok(player::Clocks {
            start: clock(self.start_clock, "start clock")?,
            play: clock(self.play_clock, "play clock")?,
        })
    }
}

/// One finished match, as the journal holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Played {
    /// The game's name.
    pub game: String,
    /// The game's roles.
    pub roles: Vec<String>,
    /// The pairing's two players, the first as the format lists it.
    pub pairing: [String; 2],
    /// The round, from 0.
    pub round: usize,
    /// The seating, from 0: the pairing's first player plays role `turn`, the second the others.
    pub turn: usize,
    /// The seed the match was played with (the round's).
    pub seed: u64,
    /// The player in each role.
    pub players: Vec<String>,
    /// When the match ended, in seconds since the Unix epoch.
    pub finished: f64,
    /// The match: moves, goals, faults, how it ended and each answer's time.
    #[serde(flatten)]
    pub record: MatchRecord,
}

impl Played {
    /// What identifies the match in its tournament.
    pub fn key(&self) -> (String, [String; 2], usize, usize) {
        (self.game.clone(), self.pairing.clone(), self.round, self.turn)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Line {
    Tournament { schema: u32, settings: Settings },
    Match(Box<Played>),
}

/// An open journal, appended to as matches end.
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Starts a new journal at `path` for `settings`; an existing file is never overwritten.
    pub fn create(path: &Path, settings: &Settings) -> Result<Journal, TournamentError> {
        let io = |what: &str, source| TournamentError::Io { what: format!("{what} {}", path.display()), source };
        let file = File::options().write(true).create_new(true).open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => TournamentError::Setup(format!(
                "{} exists: give --resume to go on with that tournament, or another --journal",
                path.display()
            )),
            _ => io("create", e),
        })?;
        let mut journal = Journal { path: path.to_owned(), file };
        journal.write(&Line::Tournament { schema: SCHEMA, settings: settings.clone() })?;
        Ok(journal)
    }

    /// Opens the journal at `path` to go on with its tournament: its settings and the matches
    /// already played. A last line cut short (a crash while writing) is dropped from the file.
    pub fn resume(path: &Path) -> Result<(Journal, Settings, Vec<Played>), TournamentError> {
        let io = |what: &str, source| TournamentError::Io { what: format!("{what} {}", path.display()), source };
        let mut file = File::options().read(true).write(true).open(path).map_err(|e| io("open", e))?;
        let (settings, played, good_end) = parse(path, &file)?;
        file.set_len(good_end).map_err(|e| io("truncate", e))?;
        file.seek(SeekFrom::End(0)).map_err(|e| io("seek in", e))?;
        Ok((Journal { path: path.to_owned(), file }, settings, played))
    }

    /// Reads the journal at `path` without changing it: its settings and the matches played (a
    /// last line cut short is left out).
    pub fn read(path: &Path) -> Result<(Settings, Vec<Played>), TournamentError> {
        let file = File::open(path)
            .map_err(|source| TournamentError::Io { what: format!("open {}", path.display()), source })?;
        let (settings, played, _) = parse(path, &file)?;
        Ok((settings, played))
    }

    /// Appends a finished match and makes sure it is on disk.
    pub fn append(&mut self, played: &Played) -> Result<(), TournamentError> {
        self.write(&Line::Match(Box::new(played.clone())))
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, line: &Line) -> Result<(), TournamentError> {
        let io = |source| TournamentError::Io { what: format!("write {}", self.path.display()), source };
        let mut text = serde_json::to_string(line).expect("journal lines serialise");
        text.push('\n');
        self.file.write_all(text.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)
    }
}

/// The settings and matches of the journal `file` (read from `path`), and where its last whole
/// line ends.
fn parse(path: &Path, file: &File) -> Result<(Settings, Vec<Played>, u64), TournamentError> {
    let io = |source| TournamentError::Io { what: format!("read {}", path.display()), source };
    let bad = |line: usize, why: String| TournamentError::Journal { file: path.display().to_string(), line, why };
    let mut settings = None;
    let mut played = Vec::new();
    let mut good_end = 0u64;
    let mut reader = BufReader::new(file);
    let mut text = String::new();
    for number in 1.. {
        text.clear();
        let read = reader.read_line(&mut text).map_err(io)?;
        if read == 0 {
            break;
        }
        if !text.ends_with('\n') {
            // The last line, cut short: its match is played again.
            break;
        }
        let line: Line = serde_json::from_str(&text).map_err(|e| bad(number, format!("not a journal line: {e}")))?;
        match (line, &settings) {
            (Line::Tournament { schema, settings: s }, None) if schema == SCHEMA => settings = Some(s),
            (Line::Tournament { schema, .. }, None) => {
                return Err(bad(number, format!("journal schema {schema}; this program reads {SCHEMA}")))
            }
            (Line::Match(p), Some(_)) => played.push(*p),
            _ => return Err(bad(number, "the settings must come first, and only once".into())),
        }
        good_end += read as u64;
    }
    let settings = settings.ok_or_else(|| bad(1, "an empty journal".into()))?;
    Ok((settings, played, good_end))
}
