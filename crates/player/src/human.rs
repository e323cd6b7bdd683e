//! A person at the keyboard as a player: shown its legal moves numbered and in KIF with the
//! time left, it answers with a number or a move. Input that is neither re-asks; no answer
//! before the play clock runs out is [`PlayerError::OutOfTime`], which the referee records as a
//! late move, as for any player.

use crate::{MatchInfo, Player, PlayerError, Track};
use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Instant;

/// A person playing through lines of text: the moves are asked on `out` and read from `input`,
/// one line each.
pub struct Human {
    input: Receiver<String>,
    out: Box<dyn Write + Send>,
    follower: Option<Box<dyn Track>>,
    /// Our role's name, for the prompt.
    role: String,
    /// The last move was not made in time: lines waiting now were typed for it, too late.
    stale: bool,
}

impl Human {
    /// A person answering on the lines that arrive on `input`, asked on `out`.
    pub fn new(input: Receiver<String>, out: Box<dyn Write + Send>) -> Human {
        Human { input, out, follower: None, role: String::new(), stale: false }
    }

    /// A person at this process' terminal: lines read from standard input (on a thread of its
    /// own, so that the clock can run out while nobody types), asked on standard output.
    pub fn at_terminal() -> Result<Human, PlayerError> {
        let (lines, input) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("keyboard".to_owned())
            .spawn(move || {
                for line in std::io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    if lines.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|source| PlayerError::Thread { what: "keyboard", source })?;
        Ok(Human::new(input, Box::new(std::io::stdout())))
    }

    /// Prints `text` to the person; a terminal that went away does not stop the match.
    fn say(&mut self, text: std::fmt::Arguments<'_>) {
        let _ = self.out.write_fmt(text);
        let _ = self.out.flush();
    }
}

/// The legal moves, numbered from 1, in as many columns as fit in 100 characters.
fn menu(legal: &[String]) -> String {
    let width = legal.iter().map(String::len).max().unwrap_or(0) + legal.len().to_string().len() + 4;
    let columns = (100 / width).max(1);
    let mut text = String::new();
    for (i, mv) in legal.iter().enumerate() {
        let cell = format!("{:>w$} {mv}", i + 1, w = legal.len().to_string().len());
        let last = (i + 1) % columns == 0 || i + 1 == legal.len();
        match last {
            true => text.push_str(format!("  {cell}\n").trim_end_matches(' ')),
            false => text.push_str(&format!("  {cell:<w$}", w = width - 2)),
        }
    }
    text
}

/// The legal move that `line` names: its number in the menu, or the move in KIF (the outer
/// parentheses may be left out: `mark 1 1`); otherwise what to tell the person.
fn choose<'a>(legal: &'a [String], line: &str) -> Result<&'a String, String> {
    let line = line.trim();
    if let Ok(n) = line.parse::<usize>() {
        return match n.checked_sub(1).and_then(|i| legal.get(i)) {
            Some(mv) => Ok(mv),
            None => Err(format!("there is no move {n}: choose 1 to {}", legal.len())),
        };
    }
    let named = gdl::canonical_term(line).or_else(|| gdl::canonical_term(&format!("({line})")));
    let found = named
        .as_ref()
        .and_then(|name| legal.iter().find(|mv| gdl::canonical_term(mv).as_ref() == Some(name) || *mv == name));
    match (found, named) {
        (Some(mv), _) => Ok(mv),
        (None, Some(name)) => Err(format!("{name} is not a legal move now")),
        (None, None) => Err(format!("{line:?} is neither a move's number nor a move in KIF")),
    }
}

impl Player for Human {
    fn name(&self) -> &str {
        "human"
    }

    fn start(&mut self, info: &MatchInfo, _deadline: Instant) -> Result<(), PlayerError> {
        self.follower = Some(info.game.follow(&info.role)?);
        self.role = info.role.clone();
        Ok(())
    }

    fn guess(&mut self, last: &[String]) -> Option<String> {
        self.follower.as_mut()?.guess(last).ok()
    }

    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        let f = self.follower.as_mut().ok_or(PlayerError::NotStarted)?;
        f.step(last)?;
        let legal = f.legal()?;
        // A move that is the only one (a turn-taking game's noop) is not asked for.
        if let [only] = legal.as_slice() {
            return f.answer(only);
        }
        if std::mem::take(&mut self.stale) {
            while self.input.try_recv().is_ok() {}
        }
        let role = self.role.clone();
        self.say(format_args!("{}", menu(&legal)));
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            self.say(format_args!(
                "{role} to move (a number or a move; ? lists them), {:.0} s left: ",
                left.as_secs_f64()
            ));
            match self.input.recv_timeout(left) {
                Ok(line) if line.trim() == "?" => self.say(format_args!("{}", menu(&legal))),
                Ok(line) if line.trim().is_empty() => {}
                Ok(line) => match choose(&legal, &line) {
                    Ok(mv) => {
                        let mv = mv.clone();
                        return self.follower.as_mut().ok_or(PlayerError::NotStarted)?.answer(&mv);
                    }
                    Err(why) => self.say(format_args!("{why}\n")),
                },
                Err(RecvTimeoutError::Timeout) => {
                    self.stale = true;
                    self.say(format_args!("\nthe play clock ran out\n"));
                    return Err(PlayerError::OutOfTime);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.say(format_args!("\n"));
                    return Err(PlayerError::NoInput);
                }
            }
        }
    }

    fn stop(&mut self, _last: Option<&[String]>) -> Result<(), PlayerError> {
        self.follower = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{referee, Clocks, End, Fault, Game, Reflex};
    use rand::SeedableRng;
    use std::sync::atomic::AtomicBool;
    use std::sync::{mpsc, Arc, Mutex};
    use std::time::Duration;

    fn legal(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn a_move_is_chosen_by_number_or_by_kif() {
        let moves = legal(&["(mark 1 1)", "(mark 1 2)", "noop"]);
        assert_eq!(choose(&moves, " 2 "), Ok(&moves[1]));
        assert_eq!(choose(&moves, "( MARK 1   1 )"), Ok(&moves[0]));
        assert_eq!(choose(&moves, "mark 1 2"), Ok(&moves[1]));
        assert_eq!(choose(&moves, "noop"), Ok(&moves[2]));
        assert_eq!(choose(&moves, "0").unwrap_err(), "there is no move 0: choose 1 to 3");
        assert_eq!(choose(&moves, "4").unwrap_err(), "there is no move 4: choose 1 to 3");
        assert_eq!(choose(&moves, "(mark 3 3)").unwrap_err(), "(mark 3 3) is not a legal move now");
        assert!(choose(&moves, "(mark").unwrap_err().contains("neither"));
    }

    #[test]
    fn the_menu_numbers_every_move_in_columns() {
        let moves: Vec<String> = (1..=12).map(|i| format!("(drop {i})")).collect();
        let text = menu(&moves);
        for (i, mv) in moves.iter().enumerate() {
            assert!(text.contains(&format!("{:>2} {mv}", i + 1)), "{text}");
        }
        assert!(text.lines().all(|l| l.len() <= 100 && !l.ends_with(' ')), "{text}");
        assert!(text.lines().count() < moves.len(), "{text}");
    }

    /// What the person was shown, shared with the test.
    #[derive(Clone, Default)]
    struct Screen(Arc<Mutex<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn tictactoe() -> Arc<Game> {
        let g = games::find("tictactoe").unwrap();
        let (game, _) = Game::prepare(g.name, g.file, g.text, Instant::now() + Duration::from_secs(5)).unwrap();
        Arc::new(game)
    }

    /// Plays a match of Tic-Tac-Toe with the person as xplayer against the legal player, the
    /// person's lines given in advance; returns the record and what the person saw.
    fn play(lines: &[&str], play: Duration) -> (referee::MatchRecord, String) {
        let (send, input) = mpsc::channel();
        for line in lines {
            send.send(line.to_string()).unwrap();
        }
        let screen = Screen::default();
        let mut players: Vec<Box<dyn Player>> =
            vec![Box::new(Human::new(input, Box::new(screen.clone()))), Box::new(Reflex::legal())];
        let clocks = Clocks { start: Duration::from_secs(1), play };
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let halt = AtomicBool::new(false);
        let record =
            referee::play_match(&tictactoe(), &mut players, &[0, 1], clocks, 1, &mut rng, &mut |_| {}, &halt).unwrap();
        drop(send);
        let seen = String::from_utf8(screen.0.lock().unwrap().clone()).unwrap();
        (record, seen)
    }

    #[test]
    fn bad_input_asks_again_and_the_match_goes_on() {
        // The legal player marks the first free cell in order: (1 1), then (1 2), (2 1)...
        // x: (2 2), (3 3), (1 3), (3 1) on the anti-diagonal; o: (1 1), (1 2), (2 1).
        let typed = ["", "(mark", "10", "mark 2 2", "(mark 2 2)", "?", "(MARK 3 3)", "1", "(mark 3 1)"];
        let (record, seen) = play(&typed, Duration::from_secs(30));
        assert!(record.faults.is_empty(), "{:?}\n{seen}", record.faults);
        assert_eq!(record.end, End::Terminal);
        let mine: Vec<&str> = record.moves.iter().step_by(2).map(|joint| joint[0].as_str()).collect();
        assert_eq!(mine, ["(mark 2 2)", "(mark 3 3)", "(mark 1 3)", "(mark 3 1)"], "{seen}");
        assert_eq!(record.goals, vec![100, 0], "{:?}\n{seen}", record.moves);
        assert!(seen.contains("\"(mark\" is neither a move's number nor a move in KIF"), "{seen}");
        assert!(seen.contains("there is no move 10: choose 1 to 9"), "{seen}");
        assert!(seen.contains("(mark 2 2) is not a legal move now"), "{seen}");
        assert!(seen.contains("1 (mark 1 1)"), "the menu: {seen}");
        assert!(seen.contains("xplayer to move"), "{seen}");
    }

    #[test]
    fn no_answer_in_time_is_a_late_move_and_what_comes_after_is_not_taken_for_the_next() {
        let (send, input) = mpsc::channel::<String>();
        let screen = Screen::default();
        let mut human = Human::new(input, Box::new(screen.clone()));
        let info = MatchInfo {
            id: "m".into(),
            game: tictactoe(),
            role: "xplayer".into(),
            start_clock: Duration::from_secs(1),
            play_clock: Duration::from_millis(200),
        };
        human.start(&info, Instant::now()).unwrap();
        let late = human.play(None, Instant::now() + Duration::from_millis(200));
        assert!(matches!(late, Err(PlayerError::OutOfTime)), "{late:?}");
        // Typed too late for the first move; the referee played (mark 1 1) for us.
        send.send("3".into()).unwrap();
        let joint = legal(&["(mark 1 1)", "noop"]);
        assert_eq!(human.play(Some(&joint), Instant::now() + Duration::from_millis(50)).unwrap(), "noop");
        // Typed once asked.
        let typist = send.clone();
        let typing = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            typist.send("(mark 3 3)".into()).unwrap();
        });
        let joint = legal(&["noop", "(mark 1 2)"]);
        assert_eq!(human.play(Some(&joint), Instant::now() + Duration::from_secs(5)).unwrap(), "(mark 3 3)");
        typing.join().unwrap();
        drop(send);
        let joint = legal(&["(mark 3 3)", "noop"]);
        human.play(Some(&joint), Instant::now()).unwrap(); // noop, not asked
        let joint = legal(&["noop", "(mark 2 1)"]);
        let gone = human.play(Some(&joint), Instant::now() + Duration::from_secs(5));
        assert!(matches!(gone, Err(PlayerError::NoInput)), "{gone:?}");
        let seen = String::from_utf8(screen.0.lock().unwrap().clone()).unwrap();
        assert!(seen.contains("the play clock ran out"), "{seen}");
    }

    #[test]
    fn the_referee_counts_a_move_not_made_in_time_as_late() {
        let (record, seen) = play(&[], Duration::from_millis(100));
        assert_eq!(record.end, End::Terminal);
        let asked = record.moves.iter().step_by(2).count();
        assert_eq!(record.faults.len(), asked, "{:?}\n{seen}", record.faults);
        assert!(record.faults.iter().all(|f| f.role == 0 && f.fault == Fault::Late), "{:?}", record.faults);
    }
}
