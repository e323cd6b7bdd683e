//! `latchkey serve` as a game server meets it: a real process on a loopback port, whole matches
//! played against it over HTTP by `latchkey match`, garbage that must not bring it down, and joint
//! moves it cannot read that must not cost the match.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// A `latchkey serve` process, killed when dropped.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `latchkey serve` on a free loopback port with `player`.
fn serve(player: &str) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_latchkey"))
        .args(["serve", "--host", "127.0.0.1", "--port", "0", "--player", player, "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("the address line");
    let url = line.split_whitespace().last().expect("an address").to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    Served { child, url }
}

#[test]
fn whole_matches_over_http_through_the_match_runner() {
    let served = serve("mcts");
    let players = format!("{},random", served.url);
    let series = common::json(&[
        "match",
        "tictactoe",
        "--players",
        &players,
        "--games",
        "2",
        "--startclock",
        "2",
        "--playclock",
        "2",
        "--json",
    ]);
    let served_player = &series["standings"][0];
    assert_eq!(served_player["player"], served.url.as_str(), "{series}");
    // Both seats were played over HTTP, every move in time and legal, and never lost.
    assert_eq!(served_player["games"], 2);
    assert_eq!(
        (&served_player["late"], &served_player["illegal"], &served_player["errors"]),
        (&0.into(), &0.into(), &0.into())
    );
    assert_eq!(served_player["losses"], 0, "{series}");
}

/// Tic-tac-toe with a move counter in Peano numerals: its relaxed grounding never ends, so no
/// propnet is built, while the reasoner plays it as easily as tic-tac-toe.
const WITHOUT_PROPNET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/games/peano_tictactoe.kif");

/// Two matches of the game without a propnet between `players`, 2 s start and 1 s play clocks:
/// the series' JSON, after checking that the first player never lost nor faulted, and what the
/// command wrote on standard error.
fn two_matches_without_a_propnet(players: &str) -> (serde_json::Value, String) {
    let args = ["match", WITHOUT_PROPNET, "--players", players, "--games", "2"];
    let o = common::latchkey(&[&args[..], &["--startclock", "2", "--playclock", "1", "--json"]].concat());
    assert!(o.status.success(), "{}", common::stderr(&o));
    let series: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let first = &series["standings"][0];
    assert_eq!(first["games"], 2);
    assert_eq!(
        (&first["losses"], &first["late"], &first["illegal"], &first["errors"]),
        (&0.into(), &0.into(), &0.into(), &0.into()),
        "{series}"
    );
    (series, common::stderr(&o))
}

#[test]
fn a_game_without_a_propnet_is_searched_on_the_reasoner_locally_and_over_http() {
    // Locally: the build fails within the start clock and MCTS plays on the reasoner.
    let (series, stderr) = two_matches_without_a_propnet("mcts,random");
    assert!(stderr.contains("no propnet"), "{stderr}");
    assert_eq!(series["prepared"]["engine"], "reasoner", "{series}");
    // The start clock the players in this process got is what the failed build left of it;
    // a player over the protocol gets the clock as given.
    assert!(series["prepared"]["start_clock"].as_f64().expect("seconds") < 1.0, "{series}");
    assert_eq!(series["options"]["clocks"]["start"], 2.0, "{series}");

    // Over HTTP, served by alpha-beta, which searches on the reasoner as well.
    let served = serve("alphabeta");
    two_matches_without_a_propnet(&format!("{},random", served.url));
}

/// Sends one raw HTTP request to `served` and returns the whole answer.
fn ask(served: &Served, request: &[u8]) -> String {
    let mut s = TcpStream::connect(served.url.trim_start_matches("http://")).expect("connects");
    s.write_all(request).expect("writes");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
}

/// A GGP message posted as a game server does; the answer's status and body.
fn post(served: &Served, body: &str) -> (String, String) {
    let request = format!("POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let answer = ask(served, request.as_bytes());
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (head.lines().next().unwrap_or_default().to_owned(), body.trim().to_owned())
}

#[test]
fn a_joint_move_it_cannot_read_still_gets_a_legal_move() {
    let rules = games::find("tictactoe").expect("bundled").text;
    for player in ["random", "mcts"] {
        let served = serve(player);
        let (status, body) = post(&served, &format!("(START m xplayer ({rules}) 5 2)"));
        assert!(status.ends_with("200 OK"), "{status} {body}");
        let (_, first) = post(&served, "(PLAY m nil)");
        assert!(first.starts_with("(mark"), "{first}");
        // Our own move garbled, then one move short: xplayer's turn is over either way, and
        // noop is its only legal move whatever o did.
        for joint in ["((mark 9 9) noop)", "(noop)"] {
            let (status, answer) = post(&served, &format!("(PLAY m {joint})"));
            assert!(status.ends_with("200 OK"), "{player}: {joint}: {status} {answer}");
            assert_eq!(answer, "noop", "{player}: {joint}");
        }
        // The true joint move after all: the match goes on from it.
        let (status, answer) = post(&served, &format!("(PLAY m ({first} noop))"));
        assert!(status.ends_with("200 OK") && answer == "noop", "{player}: {status} {answer}");
        let o = if first == "(mark 1 1)" { "(mark 2 2)" } else { "(mark 1 1)" };
        let (status, answer) = post(&served, &format!("(PLAY m (noop {o}))"));
        assert!(status.ends_with("200 OK") && answer.starts_with("(mark"), "{player}: {status} {answer}");
        assert!(answer != first && answer != o, "{player}: {answer} is taken");
    }
}

#[test]
fn garbage_gets_an_http_error_and_the_server_goes_on() {
    let served = serve("random");
    let ask = |request: &[u8]| ask(&served, request);
    let body = "(START m r ((role r) (init (p)) (<= (legal r a) (true (p))) (<= (next (p)) (does r a))";
    let request = format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    assert!(ask(request.as_bytes()).starts_with("HTTP/1.0 400"), "an unclosed message");
    // Unsafe: ?x occurs in the head only.
    let body = "(START m r ((role r) (<= (legal r ?x) (role r))) 5 5)";
    let request = format!("POST / HTTP/1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let answer = ask(request.as_bytes());
    assert!(answer.starts_with("HTTP/1.0 500") && answer.contains("cannot play match m"), "{answer}");
    let body = "(INFO)";
    let request =
        format!("POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let answer = ask(request.as_bytes());
    assert!(answer.ends_with("((name latchkey) (status available))"), "{answer}");
}
