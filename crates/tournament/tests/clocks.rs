//! A player over the GGP protocol is told exactly the clocks it is judged by: a recording player
//! behind a real GGP server notes the clocks its START carried, uses nearly all of each, and is
//! never late; clocks the protocol cannot carry are refused, not rounded.

use ggp::{Handler, HandlerError, Server, ServerOptions, Start};
use player::{Game, MatchInfo, Player};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use testkit::Scratch;
use tournament::{Entrant, Format, Journal, Settings, Tournament};

/// The clocks each START carried, and the legal player behind it.
struct Recorder {
    told: Arc<Mutex<Vec<(u64, u64)>>>,
    player: Option<Box<dyn Player>>,
}

impl Handler for Recorder {
    fn start(&mut self, start: &Start, deadline: Instant) -> Result<(), HandlerError> {
        self.told.lock().unwrap().push((start.start_clock, start.play_clock));
        let (game, _) = Game::prepare("recorded", "recorded", &start.rules, deadline)?;
        let info = MatchInfo::from_start(start, game);
        let mut player = player::create("legal", 1)?;
        player.start(&info, deadline)?;
        self.player = Some(player);
        // Use the start clock to the server's margin.
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        Ok(())
    }

    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, HandlerError> {
        let mv = self.player.as_mut().ok_or("not started")?.play(moves, deadline)?;
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        Ok(mv)
    }

    fn stop(&mut self, _: Option<&[String]>) {
        self.player = None;
    }

    fn abort(&mut self) {
        self.player = None;
    }

    fn preview(&mut self, _: &str, _: Instant) {}
}

fn serve(told: &Arc<Mutex<Vec<(u64, u64)>>>) -> String {
    let recorder = Recorder { told: Arc::clone(told), player: None };
    let options = ServerOptions { margin: Duration::from_millis(150), ..ServerOptions::default() };
    let server = Server::bind("127.0.0.1:0", Box::new(recorder), options).expect("binds");
    let url = format!("http://{}", server.local_addr().expect("an address"));
    std::thread::spawn(move || server.run());
    url
}

fn tournament(scratch: &Scratch, players: Vec<String>, start: f64, play: f64) -> Tournament {
    let tictactoe = games::find("tictactoe").expect("bundled");
    let deadline = Instant::now() + Duration::from_secs(5);
    let (game, _) = Game::prepare(tictactoe.name, tictactoe.file, tictactoe.text, deadline).expect("prepares");
    let settings = Settings {
        games: vec!["tictactoe".into()],
        players: players.clone(),
        format: Format::Gauntlet,
        rounds: 1,
        start_clock: start,
        play_clock: play,
        seed: 1,
        sprt: None,
    };
    Tournament {
        settings,
        games: vec![Arc::new(game)],
        entrants: Entrant::all(&players).expect("players"),
        concurrency: 1,
        cpus: None,
        logs: scratch.path("logs"),
    }
}

fn journal(t: &Tournament) -> Journal {
    let path = t.logs.with_file_name("journal.jsonl");
    let _ = std::fs::remove_file(&path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    Journal::create(&path, &t.settings).expect("a new journal")
}

#[test]
fn remote_players_are_told_the_clocks_they_are_judged_by() {
    let told = Arc::new(Mutex::new(Vec::new()));
    let url = serve(&told);
    let scratch = Scratch::new();
    let t = tournament(&scratch, vec!["random".into(), format!("recorder={url}")], 2.0, 1.0);
    let report = tournament::run(&t, &mut journal(&t), Vec::new(), &AtomicBool::new(false), &|_| {}).expect("runs");
    // Both seatings: told 2 s and 1 s, the clocks as given, though the referee's preparation
    // shortens the local player's start clock.
    assert_eq!(*told.lock().unwrap(), [(2, 1), (2, 1)]);
    let recorder = &report.standings[1];
    assert_eq!(recorder.matches, 2);
    assert_eq!((recorder.late, recorder.illegal, recorder.errors), (0, 0, 0), "{report:?}");

    // A clock the protocol cannot carry is refused before a match is played.
    let t = tournament(&scratch, vec!["random".into(), format!("recorder={url}")], 2.0, 0.4);
    let e = tournament::run(&t, &mut journal(&t), Vec::new(), &AtomicBool::new(false), &|_| {}).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the GGP protocol speaks whole seconds: the play clock of 0.4 s cannot be told to recorder"
    );
    assert_eq!(told.lock().unwrap().len(), 2);
}
