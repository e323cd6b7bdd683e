//! The referee of a local match: it owns the true state, asks every player for its move at once
//! (each on its own thread, as a GGP server asks them over the network), and keeps the match
//! going whatever a player does. A move that comes late, is not a legal move, or never comes
//! because the player failed is recorded as a fault and replaced by a random legal move.

use crate::{Game, MatchInfo, Player, PlayerError};
use machine::StateMachine;
use rand::rngs::SmallRng;
use rand::Rng;
use reasoner::Reasoner;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The clocks of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Clocks {
    /// Time to prepare, from the start message (seconds in JSON).
    #[serde(serialize_with = "seconds")]
    pub start: Duration,
    /// Time for each move (seconds in JSON).
    #[serde(serialize_with = "seconds")]
    pub play: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// What went wrong with a player's move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Fault {
    /// The move (or the start acknowledgement) came after the deadline.
    Late,
    /// The player answered with something that is not a legal move.
    Illegal(String),
    /// The player failed to answer.
    Error(String),
}

impl std::fmt::Display for Fault {
    /// The fault in words, as the reports print it: `late`, `illegal move M`, `failed: WHY`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Late => f.write_str("late"),
            Fault::Illegal(mv) => write!(f, "illegal move {mv}"),
            Fault::Error(e) => write!(f, "failed: {e}"),
        }
    }
}

/// A fault, where it happened, and the move played instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRecord {
    /// The step: 0 for the start, n for the n-th move.
    pub step: usize,
    /// The role whose player was at fault.
    pub role: usize,
    /// What went wrong.
    pub fault: Fault,
    /// The random legal move played in its place (none for a fault at the start).
    pub replacement: Option<String>,
}

/// How a match ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// A terminal state was reached.
    Terminal,
    /// The match ran for the longest length the referee allows.
    StepLimit,
    /// A role had no legal move in a non-terminal state (broken rules).
    NoLegalMove,
}

/// Everything about one match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchRecord {
    /// For each role, the index of the player who played it.
    pub seats: Vec<usize>,
    /// The joint moves, in KIF, one per role, in order.
    pub moves: Vec<Vec<String>>,
    /// Each role's goal value in the final state (0 where the rules give none).
    pub goals: Vec<u32>,
    /// Every fault, in order.
    pub faults: Vec<FaultRecord>,
    /// How the match ended.
    pub end: End,
    /// For each step (0 is the start, n the n-th move), the seconds each role's player took to
    /// answer, to the millisecond.
    #[serde(default)]
    pub times: Vec<Vec<f64>>,
    /// For each move, what each role's player expected to score after it (0..=100, to a tenth),
    /// where its search said and its move was played; empty where no player ever said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected: Vec<Vec<Option<f64>>>,
}

/// How a match went for one role, against the best score of the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It scored more than every other role.
    Win,
    /// It tied for the best score.
    Draw,
    /// Another role scored more.
    Loss,
}

impl MatchRecord {
    /// How the match went for `role`; `None` in a one-role game.
    pub fn outcome(&self, role: usize) -> Option<Outcome> {
        let mine = self.goals[role];
        let best = self.goals.iter().enumerate().filter(|&(r, _)| r != role).map(|(_, &g)| g).max()?;
        Some(match mine.cmp(&best) {
            std::cmp::Ordering::Greater => Outcome::Win,
            std::cmp::Ordering::Equal => Outcome::Draw,
            std::cmp::Ordering::Less => Outcome::Loss,
        })
    }
}

impl std::fmt::Display for FaultRecord {
    /// The fault in words with the move played instead, where there was one: `late, (mark 1 1)
    /// played instead`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.replacement {
            Some(mv) => write!(f, "{}, {mv} played instead", self.fault),
            None => write!(f, "{}", self.fault),
        }
    }
}

/// What happens during a match, for live reports.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// Match `game` starts with these players (indices) in the roles' seats.
    Started {
        /// The match's number in its series.
        game: usize,
        /// For each role, the index of its player.
        seats: &'a [usize],
    },
    /// A joint move was played.
    Moved {
        /// The match's number in its series.
        game: usize,
        /// The move's number, from 1.
        step: usize,
        /// The joint move in KIF, one per role.
        moves: &'a [String],
        /// The faults of this step.
        faults: &'a [FaultRecord],
        /// The true propositions of the state the move led to, in canonical KIF.
        state: &'a [String],
    },
    /// The match is over.
    Finished {
        /// The match's number in its series.
        game: usize,
        /// The whole match.
        record: &'a MatchRecord,
    },
}

/// The longest match the referee plays before calling it off.
pub const MAX_STEPS: usize = 10_000;

/// What one player answered, and when.
type Answer<T> = (Result<T, PlayerError>, Instant);

/// `d` in seconds, to the millisecond.
fn millis(d: Duration) -> f64 {
    d.as_millis() as f64 / 1000.0
}

/// `x` to a tenth.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Runs `ask` for every seated player at once, one thread each, and collects the answers with the
/// moments they came; a player that panics has failed.
fn ask_all<T: Send>(
    seated: &mut [&mut Box<dyn Player>],
    ask: impl Fn(usize, &mut dyn Player) -> Result<T, PlayerError> + Sync,
) -> Vec<Answer<T>> {
    std::thread::scope(|scope| {
        let ask = &ask;
        let threads: Vec<_> = seated
            .iter_mut()
            .enumerate()
            .map(|(role, player)| scope.spawn(move || (ask(role, player.as_mut()), Instant::now())))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap_or_else(|_| (Err(PlayerError::Panicked), Instant::now()))).collect()
    })
}

/// Plays one match of `game` numbered `number`: role r is played by `players[seats[r]]` (`seats`
/// must be a permutation of the players' indices, one per role). Replacement moves are drawn
/// from `rng`; `events` hears about every start, move and end. A player over the GGP protocol
/// gets the whole start clock, one in this process the start clock less the game's preparation
/// ([`Game::start_clock`]); each is told the clocks it is judged by. When `halt` is set the
/// match is abandoned before its next step ([`PlayerError::Halted`]), its players stopped.
#[allow(clippy::too_many_arguments)]
pub fn play_match(
    game: &Arc<Game>,
    players: &mut [Box<dyn Player>],
    seats: &[usize],
    clocks: Clocks,
    number: usize,
    rng: &mut SmallRng,
    events: &mut dyn FnMut(Event<'_>),
    halt: &AtomicBool,
) -> Result<MatchRecord, PlayerError> {
    let table = Table { game, players, seats, clocks, number, rng, events, halt };
    match game.machine() {
        Some(m) => table.referee(m),
        None => table.referee(Reasoner::new(&game.desc)),
    }
}

/// What [`play_match`] was given, for the engine it referees on.
struct Table<'a> {
    game: &'a Arc<Game>,
    players: &'a mut [Box<dyn Player>],
    seats: &'a [usize],
    clocks: Clocks,
    number: usize,
    rng: &'a mut SmallRng,
    events: &'a mut dyn FnMut(Event<'_>),
    halt: &'a AtomicBool,
}

impl Table<'_> {
    /// Plays the match on the machine `m`.
    fn referee<M: StateMachine>(self, mut m: M) -> Result<MatchRecord, PlayerError> {
        let Table { game, players, seats, clocks, number, rng, events, halt } = self;
        let roles = m.roles().to_vec();
        let players_count = players.len();
        let mut slots: Vec<Option<&mut Box<dyn Player>>> = players.iter_mut().map(Some).collect();
        let mut seated: Vec<&mut Box<dyn Player>> = seats
            .iter()
            .map(|&p| slots.get_mut(p).and_then(Option::take))
            .collect::<Option<_>>()
            .filter(|s: &Vec<_>| s.len() == roles.len())
            .ok_or(PlayerError::Seats { players: players_count, roles: roles.len() })?;
        events(Event::Started { game: number, seats });

        let mut record = MatchRecord {
            seats: seats.to_vec(),
            moves: Vec::new(),
            goals: Vec::new(),
            faults: Vec::new(),
            end: End::Terminal,
            times: Vec::new(),
            expected: Vec::new(),
        };
        let asked = Instant::now();
        let start_clocks: Vec<Duration> =
            seated.iter().map(|p| game.start_clock(clocks.start, p.over_protocol())).collect();
        let started = ask_all(&mut seated, |r, p| {
            let info = MatchInfo {
                id: format!("{}-{number}", game.name),
                game: Arc::clone(game),
                role: roles[r].clone(),
                start_clock: start_clocks[r],
                play_clock: clocks.play,
            };
            p.start(&info, asked + start_clocks[r])
        });
        record.times.push(started.iter().map(|(_, at)| millis(*at - asked)).collect());
        for (role, (result, at)) in started.into_iter().enumerate() {
            let fault = match result {
                Err(e) => Some(Fault::Error(ggp::error_chain(&e))),
                Ok(()) if at > asked + start_clocks[role] => Some(Fault::Late),
                Ok(()) => None,
            };
            record.faults.extend(fault.map(|fault| FaultRecord { step: 0, role, fault, replacement: None }));
        }

        let mut state = m.initial_state();
        let mut last: Option<Vec<String>> = None;
        loop {
            if halt.load(Ordering::Relaxed) {
                ask_all(&mut seated, |_, p| p.stop(last.as_deref()));
                return Err(PlayerError::Halted);
            }
            if m.is_terminal(&state)? {
                break;
            }
            if record.moves.len() >= MAX_STEPS {
                record.end = End::StepLimit;
                break;
            }
            let mut legal = Vec::with_capacity(roles.len());
            for r in 0..roles.len() {
                legal.push(m.legal_moves(&state, r)?);
            }
            if legal.iter().any(Vec::is_empty) {
                record.end = End::NoLegalMove;
                break;
            }
            let asked = Instant::now();
            let deadline = asked + clocks.play;
            let answers = ask_all(&mut seated, |_, p| p.play(last.as_deref(), deadline));
            record.times.push(answers.iter().map(|(_, at)| millis(*at - asked)).collect());
            let step = record.moves.len() + 1;
            let first_fault = record.faults.len();
            let mut joint = Vec::with_capacity(roles.len());
            let mut expected: Vec<Option<f64>> = seated.iter().map(|p| p.expected().map(tenth)).collect();
            for (role, (answer, at)) in answers.into_iter().enumerate() {
                let chosen = match answer {
                    Err(PlayerError::OutOfTime) => Err(Fault::Late),
                    Err(e) => Err(Fault::Error(ggp::error_chain(&e))),
                    Ok(_) if at > deadline => Err(Fault::Late),
                    Ok(text) => match gdl::canonical_term(&text) {
                        Some(name) => m.move_named(&legal[role], &name).ok_or(Fault::Illegal(text)),
                        None => Err(Fault::Illegal(text)),
                    },
                };
                joint.push(chosen.unwrap_or_else(|fault| {
                    expected[role] = None;
                    let mv = legal[role][rng.random_range(0..legal[role].len())].clone();
                    record.faults.push(FaultRecord { step, role, fault, replacement: Some(m.format_move(&mv)) });
                    mv
                }));
            }
            state = m.next_state(&state, &joint)?;
            let names: Vec<String> = joint.iter().map(|mv| m.format_move(mv)).collect();
            let props = m.state_props(&state);
            events(Event::Moved {
                game: number,
                step,
                moves: &names,
                faults: &record.faults[first_fault..],
                state: &props,
            });
            record.moves.push(names.clone());
            record.expected.push(expected);
            last = Some(names);
        }

        if record.expected.iter().flatten().all(Option::is_none) {
            record.expected.clear();
        }
        record.goals = (0..roles.len()).map(|r| machine::played_score(&m.goal(&state, r))).collect();
        let stopped = ask_all(&mut seated, |_, p| p.stop(last.as_deref()));
        let step = record.moves.len();
        for (role, (result, _)) in stopped.into_iter().enumerate() {
            if let Err(e) = result {
                record.faults.push(FaultRecord {
                    step,
                    role,
                    fault: Fault::Error(ggp::error_chain(&e)),
                    replacement: None,
                });
            }
        }
        events(Event::Finished { game: number, record: &record });
        Ok(record)
    }
}
