//! `latchkey play` as a person plays it: each move typed on standard input once the prompt
//! shows, chosen from the numbered moves on the screen.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The prompt that asks for a move.
const PROMPT: &str = "to move (a number or a move; ? lists them)";

/// A running `latchkey play` and everything it printed so far.
struct Session {
    child: Child,
    screen: Arc<Mutex<String>>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
            .arg("play")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary runs");
        let screen = Arc::new(Mutex::new(String::new()));
        let mut out = child.stdout.take().expect("piped");
        let shown = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                shown.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Session { child, screen }
    }

    fn screen(&self) -> String {
        self.screen.lock().unwrap().clone()
    }

    /// Waits until the screen shows the `n`-th prompt (then returns true) or the game ends.
    fn wait_for_prompt(&mut self, n: usize) -> bool {
        let begun = Instant::now();
        loop {
            if self.screen().matches(PROMPT).count() >= n {
                return true;
            }
            if self.child.try_wait().expect("wait").is_some() {
                std::thread::sleep(Duration::from_millis(100)); // the last output
                return self.screen().matches(PROMPT).count() >= n;
            }
            assert!(begun.elapsed() < Duration::from_secs(120), "no prompt: {}", self.screen());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn type_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped");
        writeln!(stdin, "{line}").expect("typed");
        stdin.flush().expect("typed");
    }

    /// The moves of the last menu shown: (number, move).
    fn menu(&self) -> Vec<(usize, String)> {
        let screen = self.screen();
        let before = &screen[..screen.rfind(PROMPT).expect("a prompt")];
        let menu: Vec<&str> = before.lines().rev().skip(1).take_while(|l| l.starts_with("  ")).collect();
        let mut moves = Vec::new();
        for line in menu.iter().rev() {
            // "  1 (mark 1 1)   2 (mark 1 2)": a number, then the move up to the next number.
            let words: Vec<&str> = line.split_whitespace().collect();
            let mut i = 0;
            while i < words.len() {
                let n: usize = words[i].parse().expect("a move's number");
                let mut depth = 0i32;
                let mut mv = Vec::new();
                i += 1;
                loop {
                    let w = words[i];
                    depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
                    mv.push(w);
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                moves.push((n, mv.join(" ")));
            }
        }
        moves
    }

    fn finish(mut self) -> String {
        let status = self.child.wait().expect("wait");
        std::thread::sleep(Duration::from_millis(100));
        let screen = self.screen();
        assert!(status.success(), "{screen}");
        screen
    }
}

/// Plays a whole match as `role`, typing the moves' numbers on odd turns and the moves in KIF
/// on even ones; returns the screen and the moves typed.
fn play_through(game: &str, role: &str) -> (String, Vec<String>) {
    let mut s = Session::start(&[game, "--as", role, "--against", "random", "--startclock", "1", "--think", "0.1"]);
    let mut typed = Vec::new();
    let mut asked = 0;
    while s.wait_for_prompt(asked + 1) {
        asked += 1;
        let menu = s.menu();
        assert_eq!(menu.iter().map(|(n, _)| *n).collect::<Vec<_>>(), (1..=menu.len()).collect::<Vec<_>>());
        let (n, mv) = menu[(asked * 7) % menu.len()].clone();
        match asked % 2 {
            1 => s.type_line(&n.to_string()),
            _ => s.type_line(&mv),
        }
        typed.push(mv);
    }
    (s.finish(), typed)
}

/// The joint moves shown as played: "3. (mark 1 1) noop".
fn played(screen: &str) -> Vec<Vec<String>> {
    screen
        .lines()
        .filter_map(|l| {
            let (step, rest) = l.split_once(". ")?;
            step.parse::<usize>().ok()?;
            let rest = rest.split("  [").next()?;
            let mut moves = Vec::new();
            let mut depth = 0i32;
            let mut current = String::new();
            for w in rest.split_whitespace() {
                depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
                current = if current.is_empty() { w.to_owned() } else { format!("{current} {w}") };
                if depth == 0 {
                    moves.push(std::mem::take(&mut current));
                }
            }
            Some(moves)
        })
        .collect()
}

#[test]
fn a_whole_match_of_tictactoe_typed_at_the_keyboard() {
    let (screen, typed) = play_through("tictactoe", "oplayer");
    let joints = played(&screen);
    let mine: Vec<String> = joints.iter().map(|j| j[1].clone()).filter(|m| m != "noop").collect();
    assert_eq!(mine, typed, "every move typed was played: {screen}");
    assert!(typed.len() >= 2, "{screen}");
    assert!(!screen.contains("[you:"), "no faults: {screen}");
    assert!(screen.contains("game over: random (xplayer) "), "{screen}");
    // The board after each joint move has one mark more.
    let lines: Vec<&str> = screen.lines().collect();
    let steps: Vec<usize> = (0..lines.len()).filter(|&i| played(lines[i]).len() == 1).collect();
    assert_eq!(steps.len(), joints.len());
    for (k, &i) in steps.iter().enumerate() {
        let marks = lines[i + 1..i + 4].iter().flat_map(|l| l.chars().skip(3)).filter(|c| *c == 'x' || *c == 'o');
        assert_eq!(marks.count(), k + 1, "{screen}");
    }
}

#[test]
fn a_whole_match_of_connect_four_typed_at_the_keyboard() {
    let (screen, typed) = play_through("connectfour", "red");
    let joints = played(&screen);
    let mine: Vec<String> = joints.iter().map(|j| j[0].clone()).filter(|m| m != "noop").collect();
    assert_eq!(mine, typed, "every move typed was played: {screen}");
    assert!(!screen.contains("[you:"), "no faults: {screen}");
    assert!(screen.contains("game over: you (red) "), "{screen}");
}

#[test]
fn bad_input_asks_again() {
    let mut s = Session::start(&["tictactoe", "--against", "legal", "--startclock", "1", "--think", "0.1"]);
    assert!(s.wait_for_prompt(1));
    for line in ["(mark 9 9)", "42", "mark (", "?"] {
        s.type_line(line);
    }
    s.type_line("(mark 2 2)");
    assert!(s.wait_for_prompt(6));
    let screen = s.screen();
    assert!(screen.contains("(mark 9 9) is not a legal move now"), "{screen}");
    assert!(screen.contains("there is no move 42: choose 1 to 9"), "{screen}");
    assert!(screen.contains("\"mark (\" is neither a move's number nor a move in KIF"), "{screen}");
    assert!(screen.contains("1. (mark 2 2) noop"), "{screen}");
    let _ = s.child.kill();
}

#[test]
fn a_move_not_made_in_time_is_late_and_played_for_you() {
    let mut s = Session::start(&["tictactoe", "--against", "legal", "--startclock", "1", "--playclock", "0.5"]);
    // Nobody types; standard input stays open.
    let screen = loop {
        if s.child.try_wait().expect("wait").is_some() {
            break s.finish();
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(screen.contains("the play clock ran out"), "{screen}");
    assert!(screen.contains("[you: late, (mark "), "{screen}");
    assert!(screen.contains("game over: you (xplayer) "), "{screen}");
}

#[test]
fn a_role_the_game_does_not_have_is_refused() {
    let o = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .args(["play", "tictactoe", "--as", "zplayer"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tictactoe has no role \"zplayer\" (roles: xplayer, oplayer)"), "{err}");
}
