//! An HTTP server for one player: each POST carries a message, each answer is the player's reply
//! (`Content-Type: text/acl`). One match at a time; messages about another match get `busy`, a
//! `START` of another match included (as GGP-Base's players answer). Every request runs on a
//! thread of its own, so `INFO` is answered while a move is computed. `STOP` and `ABORT` are
//! answered at once and the player winds down after (GGP-Base's server gives a `STOP` only a
//! play clock); a new match's `START` waits for it.
//!
//! A match that goes silent (a server that crashed, a network cut: no `STOP` or `ABORT` will
//! come) is given up once no message about it has arrived for twice the clock of its last one
//! plus [`ServerOptions::silence`]: the next message comes within one clock of the last, when
//! every player has answered or the clock has run out. The player is told to abort, the log says
//! so, and `INFO` answers `available` again.

use crate::message::{Message, Start};
use std::io::{self, Read};
use std::net::SocketAddr;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tiny_http::{Header, Method, Request, Response};

/// Why a [`Handler`] could not answer: whatever error the player behind it has, with its causes.
pub type HandlerError = Box<dyn std::error::Error + Send + Sync>;

/// A player behind the protocol. Each call must return by its deadline (the clock less the
/// server's safety margin).
pub trait Handler: Send {
    /// Prepares a new match (meta-gaming); an error means the match cannot be played.
    fn start(&mut self, start: &Start, deadline: Instant) -> Result<(), HandlerError>;
    /// Chooses a move after the given joint move (`None` first); answers in KIF.
    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, HandlerError>;
    /// The match ended with the given joint move.
    fn stop(&mut self, moves: Option<&[String]>);
    /// The match was cancelled.
    fn abort(&mut self);
    /// A look at a game before any match of it.
    fn preview(&mut self, rules: &str, deadline: Instant);
}

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The name `INFO` reports.
    pub name: String,
    /// Time kept back from every clock for the network and the server's own work.
    pub margin: Duration,
    /// Larger request bodies are refused.
    pub max_body: usize,
    /// Print each message and reply on standard error.
    pub log: bool,
    /// How long past twice its last message's clock a match may go without a message before
    /// it is given up as abandoned.
    pub silence: Duration,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            name: "latchkey".into(),
            margin: Duration::from_secs(1),
            max_body: 16 << 20,
            log: false,
            silence: Duration::from_secs(20),
        }
    }
}

struct Shared {
    handler: Mutex<Box<dyn Handler>>,
    /// The match being played, if any.
    current: Mutex<Option<Live>>,
    options: ServerOptions,
}

/// The match being played.
#[derive(Debug, Clone)]
struct Live {
    id: String,
    play_clock: u64,
    /// When its last message arrived, and that message's clock in seconds.
    heard: Instant,
    clock: u64,
    /// Given up as abandoned; the player is being told to abort, and until it has, the server
    /// stays busy.
    expired: bool,
}

impl Live {
    /// Whether no message about the match has come for longer than its clocks allow.
    fn silent(&self, options: &ServerOptions, now: Instant) -> bool {
        let allowed = Duration::from_secs(self.clock.saturating_mul(2)).saturating_add(options.silence);
        now.saturating_duration_since(self.heard) > allowed
    }
}

/// How often the server looks for abandoned matches.
const WATCH: Duration = Duration::from_millis(500);

/// A bound GGP player server.
pub struct Server {
    http: tiny_http::Server,
    shared: Arc<Shared>,
}

impl Server {
    /// Listens on `addr` (`host:port`; port 0 picks a free one) for `handler`.
    pub fn bind(addr: &str, handler: Box<dyn Handler>, options: ServerOptions) -> io::Result<Server> {
        let http = tiny_http::Server::http(addr).map_err(|e| io::Error::new(io::ErrorKind::AddrNotAvailable, e))?;
        let shared = Arc::new(Shared { handler: Mutex::new(handler), current: Mutex::new(None), options });
        Ok(Server { http, shared })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.http.server_addr().to_ip()
    }

    /// Answers requests until the listener fails.
    pub fn run(&self) -> io::Result<()> {
        let watched = Arc::downgrade(&self.shared);
        std::thread::spawn(move || {
            while let Some(shared) = watched.upgrade() {
                expire(&shared, Instant::now());
                drop(shared);
                std::thread::sleep(WATCH);
            }
        });
        loop {
            let request = self.http.recv()?;
            let shared = self.shared.clone();
            std::thread::spawn(move || answer(&shared, request));
        }
    }
}

/// Locks a mutex, taking the data over from a thread that panicked while holding it: the server
/// must keep answering.
fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn answer(shared: &Shared, mut request: Request) {
    let received = Instant::now();
    let mut ending = None;
    let (status, body) = match request.method() {
        Method::Options => (200, String::new()),
        Method::Post => match read_body(&mut request, shared.options.max_body) {
            Ok(text) => match Message::parse(&text) {
                Ok(message) => {
                    let reply = panic::catch_unwind(AssertUnwindSafe(|| dispatch(shared, &message, received)))
                        .map(|(reply, end)| {
                            ending = end;
                            reply
                        })
                        .unwrap_or_else(|_| Err("the player failed on this message".to_owned()));
                    if shared.options.log {
                        eprintln!("{} -> {}", summary(&message), reply.as_deref().unwrap_or_else(|e| e));
                    }
                    match reply {
                        Ok(reply) => (200, reply),
                        Err(e) => (500, e),
                    }
                }
                Err(e) => (400, e.to_string()),
            },
            Err((status, e)) => (status, e),
        },
        _ => (405, "send GGP messages with POST".to_owned()),
    };
    if status != 200 && shared.options.log {
        eprintln!("HTTP {status}: {body}");
    }
    let mut response = Response::from_string(body).with_status_code(status);
    for (name, value) in [
        ("Content-Type", "text/acl"),
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
        ("Access-Control-Allow-Headers", "Content-Type"),
    ] {
        if let Ok(h) = Header::from_bytes(name, value) {
            response.add_header(h);
        }
    }
    // The server may have hung up; there is no one left to tell.
    let _ = request.respond(response);
    if let Some(ending) = ending {
        // A player that fails to wind down has still ended its match.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| ending.run()));
    }
}

fn read_body(request: &mut Request, max: usize) -> Result<String, (u16, String)> {
    let mut bytes = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    request.as_reader().take(limit).read_to_end(&mut bytes).map_err(|e| (400, format!("cannot read the body: {e}")))?;
    if bytes.len() > max {
        return Err((413, format!("the message is longer than {max} bytes")));
    }
    String::from_utf8(bytes).map_err(|_| (400, "the message is not UTF-8 text".to_owned()))
}

/// What the message is, for the log: the keyword and match id, not the whole rule set.
fn summary(message: &Message) -> String {
    match message {
        Message::Start(s) => format!("START {} as {} ({} s / {} s)", s.id, s.role, s.start_clock, s.play_clock),
        Message::Preview { clock, .. } => format!("PREVIEW ({clock} s)"),
        other => other.to_string(),
    }
}

/// Gives the match up if it has gone silent: marks it expired (the server stays busy), tells
/// the player to abort, then frees the slot. The handler is not asked while the slot is held,
/// so a message waiting for either cannot deadlock, and no new match starts before the abort.
fn expire(shared: &Shared, now: Instant) {
    let live = {
        let mut current = lock(&shared.current);
        match current.as_mut() {
            Some(live) if !live.expired && live.silent(&shared.options, now) => {
                live.expired = true;
                live.clone()
            }
            _ => return,
        }
    };
    if shared.options.log {
        eprintln!(
            "match {} expired: no message for {:.0} s (its last clock {} s); aborting it, available again",
            live.id,
            now.saturating_duration_since(live.heard).as_secs_f64(),
            live.clock
        );
    }
    lock(&shared.handler).abort();
    *lock(&shared.current) = None;
}

/// When an answer to a message received at `received` with `clock` seconds is due, for the player.
fn deadline(options: &ServerOptions, received: Instant, clock: u64) -> Instant {
    let clock = Duration::from_secs(clock);
    // A margin as long as the clock would leave no time at all: keep a quarter of it instead.
    let left = clock.saturating_sub(options.margin).max(clock / 4);
    // A clock too long for the machine's clock to count to is as good as no clock: a year.
    received.checked_add(left).unwrap_or_else(|| received + Duration::from_secs(365 * 24 * 3600))
}

/// The end of a match, tidied up once its reply is sent (GGP-Base's server allows a `STOP` only
/// a play clock, and a player may take longer to wind down), with the player held so that no new
/// match starts before it is done.
enum Ending<'a> {
    Stop(MutexGuard<'a, Box<dyn Handler>>, Option<Vec<String>>),
    Abort(MutexGuard<'a, Box<dyn Handler>>),
}

impl Ending<'_> {
    fn run(self) {
        match self {
            Ending::Stop(mut player, moves) => player.stop(moves.as_deref()),
            Ending::Abort(mut player) => player.abort(),
        }
    }
}

/// The reply to `message`, and the end of a match it leaves to tidy up after the reply.
fn dispatch<'a>(
    shared: &'a Shared,
    message: &Message,
    received: Instant,
) -> (Result<String, String>, Option<Ending<'a>>) {
    // Before the player is held below: giving a match up takes it too.
    expire(shared, received);
    match message {
        // Another match's STOP or ABORT gets `busy` without waiting for the player; this one's
        // holds the player before it frees the match, so no START comes in between.
        Message::Stop { .. } | Message::Abort { .. } => {
            let reply = reply(shared, message, received);
            if !matches!(reply.as_deref(), Ok("done" | "aborted")) {
                return (reply, None);
            }
            let player = lock(&shared.handler);
            let ended = lock(&shared.current).take().is_some();
            let ending = match message {
                Message::Stop { moves, .. } => Ending::Stop(player, moves.clone()),
                _ => Ending::Abort(player),
            };
            (reply, ended.then_some(ending))
        }
        _ => (reply(shared, message, received), None),
    }
}

fn reply(shared: &Shared, message: &Message, received: Instant) -> Result<String, String> {
    let options = &shared.options;
    // Another match's message, or this one's after it expired; this match's is heard.
    let busy = |id: &str| {
        let mut current = lock(&shared.current);
        match current.as_mut() {
            Some(live) if live.id == id && !live.expired => {
                (live.heard, live.clock) = (received, live.play_clock);
                false
            }
            Some(_) => true,
            None => false,
        }
    };
    match message {
        Message::Info => {
            let status = if lock(&shared.current).is_some() { "busy" } else { "available" };
            Ok(format!("((name {}) (status {status}))", options.name))
        }
        Message::Preview { rules, clock } => {
            if lock(&shared.current).is_some() {
                return Ok("busy".into());
            }
            lock(&shared.handler).preview(rules, deadline(options, received, *clock));
            Ok("ready".into())
        }
        Message::Start(start) => {
            {
                let mut current = lock(&shared.current);
                match current.as_ref() {
                    Some(live) if live.id == start.id && !live.expired => return Ok("ready".into()),
                    Some(_) => return Ok("busy".into()),
                    None => {
                        *current = Some(Live {
                            id: start.id.clone(),
                            play_clock: start.play_clock,
                            heard: received,
                            clock: start.start_clock,
                            expired: false,
                        })
                    }
                }
            }
            let result = lock(&shared.handler).start(start, deadline(options, received, start.start_clock));
            match result {
                Ok(()) => Ok("ready".into()),
                Err(e) => {
                    *lock(&shared.current) = None;
                    Err(format!("cannot play match {}: {}", start.id, crate::error_chain(e.as_ref())))
                }
            }
        }
        Message::Play { id, moves } => {
            if busy(id) {
                return Ok("busy".into());
            }
            let Some(clock) = lock(&shared.current).as_ref().map(|live| live.play_clock) else {
                return Err(format!("no match {id} is being played"));
            };
            lock(&shared.handler)
                .play(moves.as_deref(), deadline(options, received, clock))
                .map_err(|e| crate::error_chain(e.as_ref()))
        }
        // The match ends in `dispatch`, after the reply.
        Message::Stop { id, .. } => Ok(if busy(id) { "busy" } else { "done" }.into()),
        Message::Abort { id } => Ok(if busy(id) { "busy" } else { "aborted" }.into()),
    }
}
