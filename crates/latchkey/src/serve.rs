//! `latchkey serve`: a player behind the GGP protocol, for game servers to play against. Each
//! `START` builds the game's propnet within the start clock and hands the match to the chosen
//! player; a game whose propnet cannot be built is still played, by random legal moves on the
//! reasoner, so that no match is lost to a build failure.

use crate::engine::build_propnet_by;
use anyhow::{bail, Context, Result};
use ggp::{Handler, Server, ServerOptions, Start};
use player::{Follower, Game, MatchInfo, Player};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use reasoner::Reasoner;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `latchkey serve` was asked to do.
pub struct Args {
    /// The address to listen on.
    pub host: String,
    /// The port (0 picks a free one; the address is printed either way).
    pub port: u16,
    /// The player that plays the matches, by name.
    pub player: String,
    /// Seconds kept back from every clock.
    pub margin: f64,
    /// Seeds the player's randomness.
    pub seed: u64,
    /// Do not log messages on standard error.
    pub quiet: bool,
}

/// Serves until the listener fails.
pub fn run(args: Args) -> Result<ExitCode> {
    // Fail now, not at the first START, if the player does not exist.
    player::create(&args.player, args.seed)?;
    let margin = Duration::try_from_secs_f64(args.margin)
        .with_context(|| format!("the margin must be a number of seconds, not {}", args.margin))?;
    let handler = Served { spec: args.player.clone(), seed: args.seed, matches: 0, playing: None };
    let options = ServerOptions { margin, log: !args.quiet, ..ServerOptions::default() };
    let addr = format!("{}:{}", args.host, args.port);
    let server = Server::bind(&addr, Box::new(handler), options).with_context(|| format!("cannot listen on {addr}"))?;
    let Some(local) = server.local_addr() else { bail!("{addr} is not an IP address") };
    // Scripts and tests read the address from this line.
    println!("latchkey serving {} on http://{local}", args.player);
    server.run().context("the server stopped")?;
    Ok(ExitCode::SUCCESS)
}

/// The match in progress.
enum Playing {
    /// The chosen player, on the game's propnet.
    Player(Box<dyn Player>),
    /// Random legal moves on the reasoner, for a game without a propnet.
    Fallback(Box<Fallback>),
}

/// The protocol's view of the player: one match at a time, a fresh player for each.
struct Served {
    spec: String,
    seed: u64,
    matches: u64,
    playing: Option<Playing>,
}

impl Handler for Served {
    fn start(&mut self, start: &Start, deadline: Instant) -> Result<(), String> {
        let label = format!("match {}", start.id);
        let (desc, _) = gdl::load(&label, &start.rules).map_err(|e| e.to_string())?;
        self.matches += 1;
        let seed = self.seed.wrapping_add(self.matches);
        // The build gets most of the start clock; the player's own preparation the rest.
        let build_by = Instant::now() + deadline.saturating_duration_since(Instant::now()).mul_f64(0.6);
        self.playing = Some(match build_propnet_by(&desc, build_by) {
            Ok(net) => {
                let game = Arc::new(Game::new(label, start.rules.clone(), desc, net));
                let info = MatchInfo {
                    id: start.id.clone(),
                    game,
                    role: start.role.clone(),
                    start_clock: Duration::from_secs(start.start_clock),
                    play_clock: Duration::from_secs(start.play_clock),
                };
                let mut player = player::create(&self.spec, seed).map_err(|e| e.to_string())?;
                player.start(&info, deadline).map_err(|e| e.to_string())?;
                Playing::Player(player)
            }
            Err(e) => {
                eprintln!("note: no propnet for match {} ({e}); playing random legal moves", start.id);
                Playing::Fallback(Box::new(Fallback::new(&desc, &start.role, seed)?))
            }
        });
        Ok(())
    }

    /// A joint move the player cannot read (not the game's, not legal, the wrong number) still
    /// gets a legal answer, guessed from what can be read, so that a confused server or a bug of
    /// ours costs a move at worst, never the match; the problem goes to standard error.
    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, String> {
        let answer = match self.playing.as_mut() {
            Some(Playing::Player(p)) => {
                p.play(moves, deadline).map_err(|e| (e.to_string(), moves.and_then(|m| p.guess(m))))
            }
            Some(Playing::Fallback(f)) => f.play(moves).map_err(|e| (e, moves.and_then(|m| f.follower.guess(m).ok()))),
            None => return Err("no match has started".to_owned()),
        };
        answer.or_else(|(e, guess)| match guess {
            Some(guess) => {
                eprintln!("note: {e}; answering {guess}, legal after the joint move as far as it can be read");
                Ok(guess)
            }
            None => Err(e),
        })
    }

    fn stop(&mut self, moves: Option<&[String]>) {
        if let Some(Playing::Player(mut p)) = self.playing.take() {
            if let Err(e) = p.stop(moves) {
                eprintln!("note: the player failed to stop cleanly: {e}");
            }
        }
    }

    fn abort(&mut self) {
        self.stop(None);
    }

    fn preview(&mut self, _rules: &str, _deadline: Instant) {}
}

/// Follows a match on the reasoner and plays random legal moves.
struct Fallback {
    follower: Follower<Reasoner>,
    rng: SmallRng,
}

impl Fallback {
    fn new(desc: &gdl::Description, role: &str, seed: u64) -> Result<Fallback, String> {
        let follower = Follower::on(Reasoner::new(desc), role).map_err(|e| e.to_string())?;
        Ok(Fallback { follower, rng: SmallRng::seed_from_u64(seed) })
    }

    fn play(&mut self, moves: Option<&[String]>) -> Result<String, String> {
        let mut legal = self.follower.advance(moves).map_err(|e| e.to_string())?;
        let pick = self.rng.random_range(0..legal.len());
        Ok(self.follower.answer(legal.swap_remove(pick)))
    }
}
