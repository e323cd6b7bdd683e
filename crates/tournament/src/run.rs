//! Running a tournament: the schedule of matches, the concurrent slots that play them, and the
//! ledger and journal every finished match goes to.

use crate::hall::Hall;
use crate::report::Ledger;
use crate::{Entrant, Journal, Kind, PairingReport, Played, Report, Settings, TournamentError};
use player::{Clocks, Game, PlayerError};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// A tournament ready to run.
pub struct Tournament {
    /// What was asked (the journal's first line).
    pub settings: Settings,
    /// The games, prepared, in the order of the settings.
    pub games: Vec<Arc<Game>>,
    /// The players, in the order of the settings.
    pub entrants: Vec<Entrant>,
    /// How many matches are played at once.
    pub concurrency: usize,
    /// The cores the players are pinned to, if they are.
    pub cpus: Option<Vec<usize>>,
    /// Where started players write their output.
    pub logs: PathBuf,
}

/// What happens while a tournament runs, for progress reports.
pub enum Event<'a> {
    /// A match ended and was journaled.
    Finished {
        /// The match.
        played: &'a Played,
        /// Its pairing's results so far.
        pairing: &'a PairingReport,
        /// Whether it completed a unit (a seat-swapped pair or rotation).
        unit: bool,
    },
    /// A pairing's SPRT decided: its remaining matches are not played.
    Decided {
        /// The pairing's results when it decided.
        pairing: &'a PairingReport,
    },
}

/// One match of the schedule.
#[derive(Debug, Clone, Copy)]
struct Job {
    number: usize,
    round: usize,
    game: usize,
    pairing: usize,
    turn: usize,
}

/// What the slots share.
struct Board<'j> {
    queue: VecDeque<Job>,
    ledger: Ledger,
    journal: &'j mut Journal,
    failure: Option<TournamentError>,
}

/// Plays `t`, skipping the matches already `done` (from its journal, counted first), appending
/// every finished match to `journal`; stops starting matches when `halt` is set (the matches
/// under way are abandoned and not counted). `events` hears of every match and decision.
pub fn run(
    t: &Tournament,
    journal: &mut Journal,
    done: Vec<Played>,
    halt: &AtomicBool,
    events: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Report, TournamentError> {
    let pairings = t.settings.format.pairings(t.entrants.len());
    let groups = t.check()?;
    let seats = t.seats();
    let concurrency = t.concurrency.max(1);
    let hall = Hall::new(t.entrants.clone(), seats, groups, t.logs.clone());
    let mut ledger = Ledger::new(t.entrants.clone(), &pairings, t.settings.sprt);
    let mut seen = HashSet::new();
    for (i, played) in done.iter().enumerate() {
        let known = t.games.iter().any(|g| g.name == played.game);
        let Some(p) = ledger.pairing(&played.pairing).filter(|_| known) else {
            return Err(TournamentError::Journal {
                file: journal.path().display().to_string(),
                line: i + 2,
                why: format!(
                    "a match of {} between {:?}, which this tournament does not play",
                    played.game, played.pairing
                ),
            });
        };
        if seen.insert(played.key()) {
            ledger.record(p, played);
        }
    }
    let mut queue = VecDeque::new();
    let mut number = 0;
    for round in 0..t.settings.rounds {
        for (game, g) in t.games.iter().enumerate() {
            for (pairing, &(a, b)) in pairings.iter().enumerate() {
                for turn in 0..g.roles().len() {
                    number += 1;
                    let names = [t.entrants[a].name.clone(), t.entrants[b].name.clone()];
                    if !seen.contains(&(g.name.clone(), names, round, turn)) {
                        queue.push_back(Job { number, round, game, pairing, turn });
                    }
                }
            }
        }
    }
    let board = Mutex::new(Board { queue, ledger, journal, failure: None });
    let failed = AtomicBool::new(false);
    let clocks = t.settings.clocks()?;
    std::thread::scope(|scope| {
        for slot in 0..concurrency {
            let (board, hall, failed, pairings) = (&board, &hall, &failed, &pairings);
            scope.spawn(move || {
                let fail = |e: TournamentError| {
                    failed.store(true, Ordering::Relaxed);
                    board.lock().expect("the board's lock").failure.get_or_insert(e);
                };
                while !halt.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
                    let job = {
                        let mut b = board.lock().expect("the board's lock");
                        loop {
                            match b.queue.pop_front() {
                                Some(job) if b.ledger.decided(job.pairing) => continue,
                                job => break job,
                            }
                        }
                    };
                    let Some(job) = job else { break };
                    match play(t, hall, slot, job, pairings[job.pairing], clocks, halt) {
                        Ok(played) => {
                            let mut b = board.lock().expect("the board's lock");
                            if let Err(e) = b.journal.append(&played) {
                                drop(b);
                                fail(e);
                                break;
                            }
                            let was = b.ledger.decided(job.pairing);
                            let unit = b.ledger.record(job.pairing, &played);
                            let report = b.ledger.pairing_report(job.pairing);
                            events(Event::Finished { played: &played, pairing: &report, unit });
                            if !was && b.ledger.decided(job.pairing) {
                                events(Event::Decided { pairing: &report });
                            }
                        }
                        Err(TournamentError::Match(PlayerError::Halted)) => break,
                        Err(e) => {
                            fail(e);
                            break;
                        }
                    }
                }
            });
        }
    });
    let board = board.into_inner().expect("the board's lock");
    if let Some(e) = board.failure {
        return Err(e);
    }
    let interrupted = halt.load(Ordering::Relaxed) && board.queue.iter().any(|j| !board.ledger.decided(j.pairing));
    Ok(board.ledger.report(&t.settings, interrupted, board.journal.path().display().to_string()))
}

/// Plays one match of the schedule in concurrency slot `slot`.
fn play(
    t: &Tournament,
    hall: &Hall,
    slot: usize,
    job: Job,
    (a, b): (usize, usize),
    clocks: Clocks,
    halt: &AtomicBool,
) -> Result<Played, TournamentError> {
    let game = &t.games[job.game];
    let roles = game.roles();
    let seating: Vec<usize> = (0..roles.len()).map(|r| if r == job.turn { a } else { b }).collect();
    let seed = t.settings.seed.wrapping_add(job.round as u64);
    let mut lease = hall.lease(slot, &seating, seed)?;
    let identity: Vec<usize> = (0..roles.len()).collect();
    let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(job.turn as u64));
    let record =
        player::play_match(game, &mut lease.players, &identity, clocks, job.number, &mut rng, &mut |_| {}, halt)?;
    let finished = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_millis() as f64 / 1000.0);
    Ok(Played {
        game: game.name.clone(),
        roles,
        pairing: [t.entrants[a].name.clone(), t.entrants[b].name.clone()],
        round: job.round,
        turn: job.turn,
        seed,
        players: seating.iter().map(|&e| t.entrants[e].name.clone()).collect(),
        finished,
        record,
    })
}

impl Tournament {
    /// Refuses what cannot be played: too few players, one-role games, clocks that a player
    /// over the protocol cannot be told, pools too small for the seats a match needs, too few
    /// cores to pin to. Returns the core groups, one per seat of each concurrent match, when
    /// players are pinned.
    pub fn check(&self) -> Result<Option<Vec<Vec<usize>>>, TournamentError> {
        check(self)?;
        match &self.cpus {
            Some(cpus) => Ok(Some(crate::cpus::split(cpus, self.concurrency.max(1) * self.seats())?)),
            None => Ok(None),
        }
    }

    /// Seats per match: the most roles of any game.
    fn seats(&self) -> usize {
        self.games.iter().map(|g| g.roles().len()).max().unwrap_or(2)
    }
}

fn check(t: &Tournament) -> Result<(), TournamentError> {
    if t.settings.format.pairings(t.entrants.len()).is_empty() {
        return Err(TournamentError::Setup("a tournament needs at least two players".into()));
    }
    for g in &t.games {
        if g.roles().len() < 2 {
            return Err(TournamentError::Setup(format!(
                "{} has one role: a tournament pairs players, so its games need two roles or more",
                g.name
            )));
        }
    }
    let clocks = t.settings.clocks()?;
    let most = t.seats();
    for e in &t.entrants {
        if e.over_protocol() {
            player::whole_seconds(clocks, &e.name)?;
        }
        if let Kind::Remote(urls) = &e.kind {
            // The second player of a pairing holds every seat but one.
            if urls.len() < most - 1 {
                return Err(TournamentError::Setup(format!(
                    "{} has {} address(es), but a match of {most} roles may need {}",
                    e.name,
                    urls.len(),
                    most - 1
                )));
            }
        }
    }
    Ok(())
}
