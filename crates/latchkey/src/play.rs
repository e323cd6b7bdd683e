//! `latchkey play`: a person at the keyboard plays one role of a game against players of the
//! others, with the board read from the rules drawn after every joint move.

use crate::game;
use anyhow::{bail, Result};
use player::{Clocks, Event, Human, MatchInfo, Outcome, Player, PlayerError};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `latchkey play`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// A GDL file, or the name of a bundled game.
    game: String,
    /// The role you play (the game's first role unless given).
    #[arg(long = "as", value_name = "ROLE")]
    role: Option<String>,
    /// The players of the other roles, in the order of the roles, comma-separated; one player
    /// plays them all. Any player `latchkey match` takes, http://host:port included.
    #[arg(long, value_delimiter = ',', default_value = "mcts")]
    against: Vec<String>,
    /// Seconds the other players have to prepare.
    #[arg(long = "startclock", value_name = "SECONDS", default_value_t = 10.0, value_parser = crate::output::clock_seconds)]
    start_clock: f64,
    /// Seconds you have for each move; a move not made in time is late, and the referee plays a
    /// random legal move for you.
    #[arg(long = "playclock", value_name = "SECONDS", default_value_t = 60.0, value_parser = crate::output::clock_seconds)]
    play_clock: f64,
    /// Seconds the other players have for each move (at most the play clock).
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = crate::output::clock_seconds)]
    think: f64,
    /// Seed of the random players and of the moves that replace late ones.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Never colour the board's pieces.
    #[arg(long)]
    no_colour: bool,
}

/// A player given less time per move than the match's play clock: told `think` as its play
/// clock, and asked for its move by then.
struct Paced {
    inner: Box<dyn Player>,
    think: Duration,
}

impl Player for Paced {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn start(&mut self, info: &MatchInfo, deadline: Instant) -> Result<(), PlayerError> {
        let info = MatchInfo { play_clock: self.think.min(info.play_clock), ..info.clone() };
        self.inner.start(&info, deadline)
    }

    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        self.inner.play(last, deadline.min(Instant::now() + self.think))
    }

    fn stop(&mut self, last: Option<&[String]>) -> Result<(), PlayerError> {
        self.inner.stop(last)
    }

    fn over_protocol(&self) -> bool {
        self.inner.over_protocol()
    }

    fn guess(&mut self, last: &[String]) -> Option<String> {
        self.inner.guess(last)
    }

    fn expected(&self) -> Option<f64> {
        self.inner.expected()
    }
}

/// Plays the match.
pub fn run(args: Args) -> Result<ExitCode> {
    let clock = crate::output::clock;
    let clocks = Clocks { start: clock(args.start_clock, "start clock")?, play: clock(args.play_clock, "play clock")? };
    let think = clock(args.think, "thinking time")?.min(clocks.play);
    let game = Arc::new(game::prepare(&args.game, Instant::now() + clocks.start)?);
    let roles = game.roles();
    let me = match &args.role {
        None => 0,
        Some(role) => match roles.iter().position(|r| r == role) {
            Some(r) => r,
            None => bail!("{} has no role {role:?} (roles: {})", game.name, roles.join(", ")),
        },
    };
    let others = roles.len() - 1;
    let specs: Vec<&str> = match args.against.len() {
        1 => vec![args.against[0].trim(); others],
        n if n == others => args.against.iter().map(|s| s.trim()).collect(),
        n => bail!(
            "--against names {n} players for the {others} other roles of {}: give one, or one per role",
            game.name
        ),
    };
    let mut players: Vec<Box<dyn Player>> = Vec::with_capacity(roles.len());
    let mut opponents = specs.into_iter().enumerate();
    for r in 0..roles.len() {
        if r == me {
            players.push(Box::new(Human::at_terminal()?));
            continue;
        }
        let (i, spec) = opponents.next().expect("one spec per other role");
        let inner = player::create(spec, args.seed.wrapping_add(i as u64 + 1))?;
        if inner.over_protocol() {
            player::whole_seconds(Clocks { start: clocks.start, play: think }, inner.name())?;
        }
        players.push(Box::new(Paced { inner, think }));
    }
    let names: Vec<String> = players.iter().map(|p| p.name().to_owned()).collect();
    let inference = crate::boards::infer(&game)?;
    let style = board::Style { colour: crate::boards::colour(args.no_colour) };
    let draw = |state: &[String]| println!("{}", board::text(inference.board(), state, style).trim_end());

    let who: Vec<String> = roles
        .iter()
        .enumerate()
        .map(|(r, role)| match r == me {
            true => format!("you as {role}"),
            false => format!("{} as {role}", names[r]),
        })
        .collect();
    let secs = crate::output::seconds_text;
    println!("{}: {}; your play clock {} s, theirs {} s", game.name, who.join(", "), secs(clocks.play), secs(think));
    if let board::Inference::Fallback { why } = &inference {
        println!("no board: {why}");
    }
    draw(&crate::boards::initial_state(&game)?);
    let mut events = |e: Event<'_>| match e {
        Event::Started { .. } => println!("the others prepare for up to {} s", secs(clocks.start)),
        Event::Moved { step, moves, faults, state, .. } => {
            let mut line = format!("\n{step}. {}", moves.join(" "));
            for f in faults {
                let by = if f.role == me { "you".to_owned() } else { names[f.role].clone() };
                line.push_str(&format!("  [{by}: {f}]"));
            }
            println!("{line}");
            draw(state);
        }
        Event::Finished { record, .. } => {
            let scores: Vec<String> = roles
                .iter()
                .enumerate()
                .map(|(r, role)| match r == me {
                    true => format!("you ({role}) {}", record.goals[r]),
                    false => format!("{} ({role}) {}", names[r], record.goals[r]),
                })
                .collect();
            let verdict = match record.outcome(me) {
                Some(Outcome::Win) => ": you won",
                Some(Outcome::Draw) => ": a draw",
                Some(Outcome::Loss) => ": you lost",
                None => "",
            };
            println!("\ngame over: {}{verdict}", scores.join(", "));
        }
    };
    let seats: Vec<usize> = (0..roles.len()).collect();
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let halt = AtomicBool::new(false);
    player::play_match(&game, &mut players, &seats, clocks, 1, &mut rng, &mut events, &halt)?;
    Ok(ExitCode::SUCCESS)
}
