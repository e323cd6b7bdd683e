//! Where the players of concurrent matches come from: built-in players made afresh for each
//! match (pinned to their seat's cores), remote players leased from their pools of addresses,
//! and started players (`cmd:`) leased from the processes started so far, a new one started
//! when none is free.

use crate::command::{Started, READY};
use crate::{Entrant, Kind, TournamentError};
use player::{MatchInfo, Player, PlayerError, Remote};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// The players' pools, shared by the concurrent matches.
pub struct Hall {
    entrants: Vec<Entrant>,
    /// Core groups, one per seat of every concurrent match, when players are pinned.
    groups: Option<Vec<Vec<usize>>>,
    /// Seats per match: the most roles of any game.
    seats: usize,
    logs: PathBuf,
    free: Mutex<Free>,
    returned: Condvar,
}

/// What is free to lease.
#[derive(Default)]
struct Free {
    /// Remote addresses per entrant.
    urls: HashMap<usize, Vec<String>>,
    /// Started players per entrant and core group.
    started: HashMap<(usize, Option<usize>), Vec<Started>>,
}

/// The players of one match, one per role, and what goes back to the pools after it.
pub struct Lease<'h> {
    hall: &'h Hall,
    /// The players, in role order.
    pub players: Vec<Box<dyn Player>>,
    urls: Vec<(usize, String)>,
    started: Vec<((usize, Option<usize>), Started)>,
}

impl Hall {
    /// A hall for `entrants`, with `seats` seats per match, pinned to `groups` if given (one per
    /// seat of every concurrent match), started players logging into `logs`.
    pub fn new(entrants: Vec<Entrant>, seats: usize, groups: Option<Vec<Vec<usize>>>, logs: PathBuf) -> Hall {
        let mut free = Free::default();
        for (e, entrant) in entrants.iter().enumerate() {
            if let Kind::Remote(urls) = &entrant.kind {
                free.urls.insert(e, urls.clone());
            }
        }
        Hall { entrants, groups, seats, logs, free: Mutex::new(free), returned: Condvar::new() }
    }

    /// The players for a match in concurrency slot `slot` with `seating[r]` the entrant of role
    /// r, seeded from `seed`: waits until every remote player needed has a free address, and
    /// starts command players where none is free.
    pub fn lease(&self, slot: usize, seating: &[usize], seed: u64) -> Result<Lease<'_>, TournamentError> {
        let group = |r: usize| self.groups.as_ref().map(|_| slot * self.seats + r);
        let cores = |r: usize| self.groups.as_ref().zip(group(r)).map(|(g, i)| g[i].as_slice());
        let mut lease = Lease { hall: self, players: Vec::new(), urls: Vec::new(), started: Vec::new() };
        // Remote addresses, all at once: a match never holds some while waiting for others.
        {
            let mut wanted: HashMap<usize, usize> = HashMap::new();
            for &e in seating.iter().filter(|&&e| matches!(self.entrants[e].kind, Kind::Remote(_))) {
                *wanted.entry(e).or_default() += 1;
            }
            let mut free = self.free.lock().expect("the hall's lock");
            loop {
                if wanted.iter().all(|(e, &n)| free.urls[e].len() >= n) {
                    break;
                }
                free = self.returned.wait(free).expect("the hall's lock");
            }
            for &e in seating {
                if let Some(urls) = free.urls.get_mut(&e) {
                    lease.urls.push((e, urls.pop().expect("checked above")));
                }
            }
        }
        let mut urls = lease.urls.clone().into_iter();
        for (r, &e) in seating.iter().enumerate() {
            let player: Box<dyn Player> = match &self.entrants[e].kind {
                Kind::Builtin(spec) => builtin(spec, seed.wrapping_add(r as u64 + 1), cores(r))?,
                Kind::Remote(_) => Box::new(Remote::new(&urls.next().expect("leased above").1)),
                Kind::Command(command) => {
                    let key = (e, group(r));
                    let free = self.free.lock().expect("the hall's lock").started.get_mut(&key).and_then(Vec::pop);
                    let started = match free {
                        Some(s) => s,
                        None => Started::start(command, &self.entrants[e].name, cores(r), &self.logs, READY)?,
                    };
                    let remote = Remote::new(&started.url);
                    lease.started.push((key, started));
                    Box::new(remote)
                }
            };
            lease.players.push(player);
        }
        Ok(lease)
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut free = self.hall.free.lock().expect("the hall's lock");
        for (e, url) in self.urls.drain(..) {
            free.urls.entry(e).or_default().push(url);
        }
        for (key, started) in self.started.drain(..) {
            free.started.entry(key).or_default().push(started);
        }
        self.hall.returned.notify_all();
    }
}

/// A built-in player for `spec`, made on a thread pinned to `cores` (where given) so that what
/// it sizes by the cores it may use (the search threads) sees only those.
fn builtin(spec: &str, seed: u64, cores: Option<&[usize]>) -> Result<Box<dyn Player>, TournamentError> {
    let Some(cores) = cores else { return Ok(player::create(spec, seed)?) };
    let cores = cores.to_vec();
    let spec = spec.to_owned();
    let made = std::thread::scope(|s| {
        s.spawn(|| {
            crate::cpus::pin_current_thread(&cores)
                .map_err(|e| TournamentError::Cpus(format!("cannot pin a player to cores {cores:?}: {e}")))?;
            Ok::<_, TournamentError>(player::create(&spec, seed)?)
        })
        .join()
        .unwrap_or(Err(TournamentError::Match(PlayerError::Panicked)))
    })?;
    Ok(Box::new(Pinned { inner: made, cores }))
}

/// A player in this process whose every call runs pinned to its cores: the referee asks each
/// player on a thread of its own, and threads the player starts inherit the pinning.
struct Pinned {
    inner: Box<dyn Player>,
    cores: Vec<usize>,
}

impl Pinned {
    fn pin(&self) -> Result<(), PlayerError> {
        crate::cpus::pin_current_thread(&self.cores)
            .map_err(|source| PlayerError::Thread { what: "pinned player", source })
    }
}

impl Player for Pinned {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn start(&mut self, info: &MatchInfo, deadline: Instant) -> Result<(), PlayerError> {
        self.pin()?;
        self.inner.start(info, deadline)
    }

    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        self.pin()?;
        self.inner.play(last, deadline)
    }

    fn stop(&mut self, last: Option<&[String]>) -> Result<(), PlayerError> {
        self.pin()?;
        self.inner.stop(last)
    }

    fn guess(&mut self, last: &[String]) -> Option<String> {
        self.pin().ok()?;
        self.inner.guess(last)
    }

    fn over_protocol(&self) -> bool {
        self.inner.over_protocol()
    }
}
