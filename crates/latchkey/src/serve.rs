//! `latchkey serve`: a player behind the GGP protocol, for game servers to play against. Each
//! `START` prepares the game within the start clock (its propnet, or the reasoner where the net
//! cannot be built in time) and hands the match to the chosen player; should that player be
//! unable to play the game, MCTS plays it instead, so that no match is lost before it begins.

use anyhow::{bail, Context, Result};
use ggp::{Handler, HandlerError, Server, ServerOptions, Start};
use player::{Game, MatchInfo, Player};
use std::process::ExitCode;
use std::time::Instant;

/// `latchkey serve`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// The port to listen on (0 picks a free one; the address is printed).
    #[arg(long, default_value_t = 9147)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    host: String,
    /// The player that plays the matches.
    #[arg(long, default_value = "mcts")]
    player: String,
    /// Seconds kept back from every clock for the network.
    #[arg(long, default_value_t = 1.0, value_parser = crate::output::seconds)]
    margin: f64,
    /// Seconds past twice its last message's clock that a match may go without a message
    /// before it is given up as abandoned (a server that crashed sends no STOP), and the
    /// player is available again.
    #[arg(long, default_value_t = 20.0, value_parser = crate::output::seconds)]
    silence: f64,
    /// Seed of the player's randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Do not log the messages on standard error.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Serves until the listener fails.
pub fn run(args: Args) -> Result<ExitCode> {
    fix_allocator_thresholds();
    // Fail now, not at the first START, if the player does not exist.
    player::create(&args.player, args.seed)?;
    let margin = crate::output::clock(args.margin, "margin")?;
    let handler = Served { spec: args.player.clone(), seed: args.seed, matches: 0, player: None };
    let silence = crate::output::clock(args.silence, "silence")?;
    let options = ServerOptions { margin, silence, log: !args.quiet, ..ServerOptions::default() };
    let addr = format!("{}:{}", args.host, args.port);
    let server = Server::bind(&addr, Box::new(handler), options).with_context(|| format!("cannot listen on {addr}"))?;
    let Some(local) = server.local_addr() else { bail!("{addr} is not an IP address") };
    // Scripts and tests read the address from this line.
    println!("latchkey serving {} on http://{local}", args.player);
    server.run().context("the server stopped")?;
    Ok(ExitCode::SUCCESS)
}

/// The player to fall back on when the chosen one cannot play a game: it plays any game the
/// reasoner can.
const FALLBACK: &str = "mcts";

/// The protocol's view of the player: one match at a time, a fresh player for each.
struct Served {
    spec: String,
    seed: u64,
    matches: u64,
    /// The player of the match in progress.
    player: Option<Box<dyn Player>>,
}

impl Handler for Served {
    fn start(&mut self, start: &Start, deadline: Instant) -> Result<(), HandlerError> {
        let label = format!("match {}", start.id);
        let (game, _) = Game::prepare(&label, &label, &start.rules, deadline)?;
        match &game.propnet {
            Err(why) => eprintln!("note: no propnet for {label} ({why}); playing on the reasoner"),
            Ok(propnet) => {
                if let Some(why) = propnet.program.interpreted_because() {
                    eprintln!("note: the propnet for {label} runs interpreted ({why})");
                }
            }
        }
        self.matches += 1;
        let seed = self.seed.wrapping_add(self.matches);
        let info = MatchInfo::from_start(start, game);
        let mut player = player::create(&self.spec, seed)?;
        if let Err(e) = player.start(&info, deadline) {
            if self.spec == FALLBACK {
                return Err(e.into());
            }
            eprintln!("note: {} cannot play {label} ({}); {FALLBACK} plays it", self.spec, ggp::error_chain(&e));
            player = player::create(FALLBACK, seed)?;
            player.start(&info, deadline)?;
        }
        self.player = Some(player);
        Ok(())
    }

    /// A joint move the player cannot read (not the game's, not legal, the wrong number) still
    /// gets a legal answer, guessed from what can be read, so that a confused server or a bug of
    /// ours costs a move at worst, never the match; the problem goes to standard error.
    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, HandlerError> {
        let p = self.player.as_mut().ok_or("no match has started")?;
        p.play(moves, deadline).or_else(|e| match moves.and_then(|m| p.guess(m)) {
            Some(guess) => {
                let e = ggp::error_chain(&e);
                eprintln!("note: {e}; answering {guess}, legal after the joint move as far as it can be read");
                Ok(guess)
            }
            None => Err(e.into()),
        })
    }

    fn stop(&mut self, moves: Option<&[String]>) {
        if let Some(mut p) = self.player.take() {
            if let Err(e) = p.stop(moves) {
                eprintln!("note: the player failed to stop cleanly: {}", ggp::error_chain(&e));
            }
            drop(p);
            release_freed_memory();
        }
    }

    fn abort(&mut self) {
        self.stop(None);
    }

    fn preview(&mut self, _rules: &str, _deadline: Instant) {}
}

/// glibc's allocator thresholds for a server that plays match after match: a block of 32 MB or
/// more is mapped on its own, and a heap gives its free top back to the system once that passes
/// 4 MB. glibc's defaults adjust both as large blocks are freed, up to 32 and 64 MB; a heap of a
/// search thread then kept a match's freed memory for good, and a server's resident size crept
/// from 100 MB to over 200 MB across hundreds of matches with under 1 MB in use between them.
const MMAP_THRESHOLD: i32 = 32 << 20;
const TRIM_THRESHOLD: i32 = 4 << 20;

/// Fixes glibc's allocator thresholds (see [`MMAP_THRESHOLD`]); called before any thread starts.
fn fix_allocator_thresholds() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it takes no pointers.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}

/// Gives the free pages inside the allocator's heaps back to the system after a match (the
/// heaps' free tops past [`TRIM_THRESHOLD`] were given back as the match's memory was freed).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the system; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}
