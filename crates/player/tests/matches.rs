//! Matches as the referee plays them: the alpha-beta player against a random one on ticTacToe,
//! the referee's handling of players that misbehave, seat rotation, and the alpha-beta player's
//! first move on every corpus game whose propnet builds.

use machine::StateMachine;
use player::{create, run_series, Clocks, End, Fault, Game, MatchInfo, Player, PlayerError, SeriesOptions, BUILT_IN};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn game_of(name: &str, text: &str, deadline: Option<Instant>) -> Result<Game, String> {
    let (desc, _) = gdl::load(name, text).map_err(|e| e.to_string())?;
    let limits = propnet::Limits { deadline, ..propnet::Limits::default() };
    let net = propnet::compile(&desc, &limits).map_err(|e| e.to_string())?;
    Ok(Game::new(name.to_owned(), text.to_owned(), desc, net))
}

fn bundled(name: &str) -> Arc<Game> {
    let g = games::find(name).expect("bundled");
    Arc::new(game_of(g.name, g.text, None).expect("builds"))
}

fn players(specs: &[&str]) -> Vec<Box<dyn Player>> {
    specs.iter().enumerate().map(|(i, s)| create(s, i as u64 + 7).expect("built in")).collect()
}

#[test]
fn alpha_beta_never_loses_a_hundred_tictactoe_games_to_random() {
    let game = bundled("tictactoe");
    let mut players = players(&["alphabeta", "random"]);
    let clocks = Clocks { start: Duration::from_secs(1), play: Duration::from_secs(1) };
    let options = SeriesOptions { games: 100, clocks, seed: 3 };
    let series = run_series(&game, &mut players, options, &mut |_| {}).expect("plays");
    let ab = &series.standings[0];
    assert_eq!(ab.losses, Some(0), "{ab:?}");
    assert!(ab.wins.unwrap() > 50, "random play loses most games against perfect play: {ab:?}");
    assert_eq!((ab.late, ab.illegal, ab.errors), (0, 0, 0));
    assert!(series.matches.iter().all(|m| m.end == End::Terminal));
    // Every match ended with the goals the moves lead to.
    let mut m = game.machine().expect("a propnet");
    for record in &series.matches {
        let mut state = m.initial_state();
        for joint in &record.moves {
            let moves: Vec<u32> = joint.iter().enumerate().map(|(r, mv)| m.find_move(r, mv).unwrap()).collect();
            state = m.next_state(&state, &moves).unwrap();
        }
        assert!(m.is_terminal(&state).unwrap());
        assert_eq!(record.goals, vec![m.goal(&state, 0).unwrap(), m.goal(&state, 1).unwrap()]);
    }
}

#[test]
fn without_a_propnet_alpha_beta_searches_on_the_reasoner() {
    let g = games::find("tictactoe").expect("bundled");
    let (desc, _) = gdl::load(g.name, g.text).expect("valid");
    let game = Arc::new(Game::on_reasoner(g.name.into(), g.text.into(), desc));
    let mut players = players(&["alphabeta", "random"]);
    let clocks = Clocks { start: Duration::from_millis(500), play: Duration::from_millis(300) };
    let options = SeriesOptions { games: 6, clocks, seed: 4 };
    let series = run_series(&game, &mut players, options, &mut |_| {}).expect("plays");
    let ab = &series.standings[0];
    assert_eq!(ab.losses, Some(0), "{ab:?}");
    assert!(ab.wins.unwrap() >= 3, "a search beats random play: {ab:?}");
    assert_eq!((ab.late, ab.illegal, ab.errors), (0, 0, 0), "{ab:?}");
}

/// Plays badly on purpose: fails at the start, then answers with garbage, an illegal move, a
/// failure and a late move, in turn.
struct Unruly {
    turn: usize,
}

impl Player for Unruly {
    fn name(&self) -> &str {
        "unruly"
    }

    fn start(&mut self, _info: &MatchInfo, _deadline: Instant) -> Result<(), PlayerError> {
        Err(PlayerError::Thread { what: "mood", source: std::io::Error::other("not in the mood") })
    }

    fn play(&mut self, _last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        self.turn += 1;
        match self.turn % 4 {
            1 => Ok("(mark".into()),
            2 => Ok("(mark 9 9)".into()),
            3 => Err(PlayerError::LostTrack { joint: "(mark 1 1) noop".into() }),
            _ => {
                std::thread::sleep(deadline.saturating_duration_since(Instant::now()) + Duration::from_millis(5));
                Ok("noop".into())
            }
        }
    }

    fn stop(&mut self, _last: Option<&[String]>) -> Result<(), PlayerError> {
        Ok(())
    }
}

#[test]
fn faults_are_recorded_and_replaced_and_the_match_goes_on() {
    let game = bundled("tictactoe");
    let mut players: Vec<Box<dyn Player>> = vec![Box::new(Unruly { turn: 0 }), create("legal", 1).unwrap()];
    // A clock long enough that only the deliberately late answers are late on a loaded machine.
    let clocks = Clocks { start: Duration::from_millis(500), play: Duration::from_millis(500) };
    let series =
        run_series(&game, &mut players, SeriesOptions { games: 1, clocks, seed: 1 }, &mut |_| {}).expect("plays");
    let record = &series.matches[0];
    assert_eq!(record.end, End::Terminal);
    let faults: Vec<&Fault> = record.faults.iter().map(|f| &f.fault).collect();
    // The whole chain of causes is recorded.
    assert_eq!(faults[0], &Fault::Error("cannot start the mood thread: not in the mood".into()));
    assert_eq!(faults[1], &Fault::Illegal("(mark".into()));
    assert_eq!(faults[2], &Fault::Illegal("(mark 9 9)".into()));
    assert_eq!(
        faults[3],
        &Fault::Error(
            "lost track of the match: no joint move after the unreadable one makes (mark 1 1) noop legal".into()
        )
    );
    assert_eq!(faults[4], &Fault::Late);
    assert!(record.faults.iter().all(|f| f.role == 0));
    // Every faulty move was replaced by one the referee played: the moves are the record.
    for f in record.faults.iter().filter(|f| f.step > 0) {
        assert_eq!(f.replacement.as_ref(), Some(&record.moves[f.step - 1][0]));
    }
    let count = |kind: fn(&Fault) -> bool| record.faults.iter().filter(|f| kind(&f.fault)).count();
    let unruly = &series.standings[0];
    assert_eq!(unruly.illegal, count(|f| matches!(f, Fault::Illegal(_))));
    assert_eq!(unruly.errors, count(|f| matches!(f, Fault::Error(_))));
    assert_eq!(unruly.late, count(|f| *f == Fault::Late));
    assert_eq!(series.standings[1].illegal + series.standings[1].errors + series.standings[1].late, 0);
}

#[test]
fn seats_rotate_and_the_player_count_must_match_the_roles() {
    let game = bundled("tictactoe");
    let mut players = players(&["legal", "random"]);
    let clocks = Clocks { start: Duration::from_secs(1), play: Duration::from_secs(1) };
    let series =
        run_series(&game, &mut players, SeriesOptions { games: 3, clocks, seed: 1 }, &mut |_| {}).expect("plays");
    let seats: Vec<Vec<usize>> = series.matches.iter().map(|m| m.seats.clone()).collect();
    assert_eq!(seats, [vec![0, 1], vec![1, 0], vec![0, 1]]);
    let mut three = self::players(&["legal", "random", "random"]);
    let e = run_series(&game, &mut three, SeriesOptions { games: 1, clocks, seed: 1 }, &mut |_| {}).err();
    assert!(matches!(e, Some(PlayerError::Seats { players: 3, roles: 2 })), "{e:?}");
    assert_eq!(BUILT_IN.len(), 5);
}

#[test]
fn alpha_beta_opens_every_corpus_game_with_a_legal_move() {
    let Some(shared) = testkit::shared::locate(env!("CARGO_MANIFEST_DIR"), "alpha-beta on the corpus") else {
        return;
    };
    let mut played = 0;
    for path in testkit::shared::games_with_propnet(&shared) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = testkit::shared::read_text(&path).unwrap();
        let Ok(game) = game_of(&name, &text, Some(Instant::now() + Duration::from_secs(20))) else { continue };
        let game = Arc::new(game);
        let mut m = game.machine().expect("a propnet");
        let initial = m.initial_state();
        for (r, role) in game.roles().iter().enumerate() {
            let info = MatchInfo {
                id: name.clone(),
                game: Arc::clone(&game),
                role: role.clone(),
                start_clock: Duration::from_secs(1),
                play_clock: Duration::from_millis(100),
            };
            let mut p = create("alphabeta", 1).unwrap();
            p.start(&info, Instant::now() + info.start_clock).expect("starts");
            let deadline = Instant::now() + info.play_clock;
            let mv = p.play(None, deadline).unwrap_or_else(|e| panic!("{name} {role}: {e}"));
            // Not a speed measurement: a search that ignored its deadline would be seconds late,
            // while on a loaded machine a thread can wake a tenth of a second after it.
            let late = Instant::now().saturating_duration_since(deadline);
            assert!(late < Duration::from_secs(1), "{name} {role}: the move came {late:?} after the deadline");
            let id = m.find_move(r, &mv).unwrap_or_else(|| panic!("{name} {role}: {mv} is no move"));
            assert!(m.legal_moves(&initial, r).unwrap().contains(&id), "{name} {role}: {mv} is not legal");
        }
        played += 1;
    }
    assert!(played >= 50, "only {played} corpus games built");
}
