//! The server over real sockets: HTTP/1.0 and 1.1, every message, `busy` for other matches,
//! `INFO` while a move is being computed, and garbage that must get an HTTP error, not a crash.

use ggp::{Handler, HandlerError, Server, ServerOptions, Start};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Plays `noop` after a pause long enough to overlap other requests, and tells the test what it
/// was asked.
struct Slow(mpsc::Sender<String>);

impl Handler for Slow {
    fn start(&mut self, start: &Start, deadline: Instant) -> Result<(), HandlerError> {
        assert!(deadline > Instant::now(), "the start deadline is in the future");
        if start.rules.contains("broken") {
            return Err("the rules are broken".into());
        }
        self.0.send(format!("start {} {}", start.id, start.role)).unwrap();
        Ok(())
    }
    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, HandlerError> {
        // A play clock of 2 s with the default 1 s margin leaves 1 s.
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(left <= Duration::from_secs(1) && left > Duration::from_millis(500), "{left:?}");
        self.0.send(format!("play {moves:?}")).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        Ok("noop".into())
    }
    fn stop(&mut self, moves: Option<&[String]>) {
        // A player that takes its time winding down.
        if moves.is_some_and(|m| m.iter().any(|m| m == "slow")) {
            std::thread::sleep(Duration::from_millis(1500));
        }
        self.0.send(format!("stop {moves:?}")).unwrap();
    }
    fn abort(&mut self) {
        self.0.send("abort".into()).unwrap();
    }
    fn preview(&mut self, _rules: &str, _deadline: Instant) {
        self.0.send("preview".into()).unwrap();
    }
}

fn server() -> (SocketAddr, mpsc::Receiver<String>) {
    server_with(ServerOptions::default())
}

fn server_with(options: ServerOptions) -> (SocketAddr, mpsc::Receiver<String>) {
    let (tx, rx) = mpsc::channel();
    let server = Server::bind("127.0.0.1:0", Box::new(Slow(tx)), options).unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.run());
    (addr, rx)
}

/// Sends raw bytes and returns the status code and body of the answer.
fn raw(addr: SocketAddr, request: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request).unwrap();
    // Half-close so that servers waiting for more of a broken request see the end.
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let status = out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

fn post(addr: SocketAddr, version: &str, body: &str) -> (u16, String) {
    let request = format!(
        "POST / HTTP/{version}\r\nHost: {addr}\r\nContent-Type: text/acl\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    raw(addr, request.as_bytes())
}

#[test]
fn a_whole_match_with_busy_and_info_on_the_side() {
    let (addr, rx) = server();
    assert_eq!(post(addr, "1.1", "(INFO)"), (200, "((name latchkey) (status available))".into()));
    assert_eq!(post(addr, "1.0", "(preview ((role r)) 5)"), (200, "ready".into()));
    assert_eq!(rx.recv().unwrap(), "preview");
    assert_eq!(post(addr, "1.0", "(START m1 R ((role r)) 10 2)"), (200, "ready".into()));
    assert_eq!(rx.recv().unwrap(), "start m1 r");
    assert_eq!(post(addr, "1.1", "(START m2 r ((role r)) 10 2)"), (200, "busy".into()));
    assert_eq!(post(addr, "1.1", "(PLAY m2 nil)"), (200, "busy".into()));
    // A move takes 300 ms; INFO is answered meanwhile, and says busy.
    let playing = std::thread::spawn(move || post(addr, "1.1", "(PLAY m1 nil)"));
    std::thread::sleep(Duration::from_millis(100));
    let asked = Instant::now();
    assert_eq!(post(addr, "1.0", "(info)"), (200, "((name latchkey) (status busy))".into()));
    assert!(asked.elapsed() < Duration::from_millis(250), "INFO waited for the move");
    assert_eq!(playing.join().unwrap(), (200, "noop".into()));
    assert_eq!(rx.recv().unwrap(), "play None");
    assert_eq!(post(addr, "1.1", "(PLAY m1 ((Go 1)))"), (200, "noop".into()));
    assert_eq!(rx.recv().unwrap(), "play Some([\"(go 1)\"])");
    assert_eq!(post(addr, "1.1", "(STOP m1 (done))"), (200, "done".into()));
    assert_eq!(rx.recv().unwrap(), "stop Some([\"done\"])");
    assert_eq!(post(addr, "1.1", "(INFO)"), (200, "((name latchkey) (status available))".into()));
    assert_eq!(post(addr, "1.1", "(START m3 r ((role r)) 10 2)"), (200, "ready".into()));
    assert_eq!(rx.recv().unwrap(), "start m3 r");
    assert_eq!(post(addr, "1.1", "(ABORT m3)"), (200, "aborted".into()));
    assert_eq!(rx.recv().unwrap(), "abort");
}

#[test]
fn stop_is_answered_before_the_player_winds_down_and_the_next_match_waits_for_it() {
    let (addr, rx) = server();
    assert_eq!(post(addr, "1.1", "(START m1 r ((role r)) 10 2)"), (200, "ready".into()));
    assert_eq!(rx.recv().unwrap(), "start m1 r");
    let asked = Instant::now();
    assert_eq!(post(addr, "1.1", "(STOP m1 (slow))"), (200, "done".into()));
    assert!(asked.elapsed() < Duration::from_millis(500), "STOP waited {:?}", asked.elapsed());
    assert_eq!(post(addr, "1.1", "(INFO)"), (200, "((name latchkey) (status available))".into()));
    // The next match starts once the last one's player is done, not under it.
    assert_eq!(post(addr, "1.1", "(START m2 r ((role r)) 10 2)"), (200, "ready".into()));
    assert!(asked.elapsed() >= Duration::from_millis(1500), "{:?}", asked.elapsed());
    assert_eq!(rx.recv().unwrap(), "stop Some([\"slow\"])");
    assert_eq!(rx.recv().unwrap(), "start m2 r");
}

#[test]
fn a_match_that_goes_silent_is_given_up_and_the_next_one_starts() {
    // Clocks of 1 s and no grace past twice the clock: 2 s without a message abandon a match.
    // (No margin, so the 1 s play clock leaves the player what `Slow` expects.)
    let options = ServerOptions { silence: Duration::ZERO, margin: Duration::ZERO, ..ServerOptions::default() };
    let (addr, rx) = server_with(options);
    let started = Instant::now();
    assert_eq!(post(addr, "1.1", "(START m1 r ((role r)) 1 1)"), (200, "ready".into()));
    assert_eq!(rx.recv().unwrap(), "start m1 r");
    assert_eq!(post(addr, "1.1", "(START m2 r ((role r)) 1 1)"), (200, "busy".into()));
    // Unasked, the player is told to abort once the match has been silent too long.
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok("abort".into()));
    assert!(started.elapsed() >= Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(post(addr, "1.1", "(INFO)"), (200, "((name latchkey) (status available))".into()));
    assert_eq!(post(addr, "1.1", "(PLAY m1 nil)"), (500, "no match m1 is being played".into()));
    assert_eq!(post(addr, "1.1", "(START m2 r ((role r)) 1 1)"), (200, "ready".into()));
    assert_eq!(rx.recv().unwrap(), "start m2 r");
    // A match that hears from its server within its clocks goes on.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(1200));
        let (status, _) = post(addr, "1.1", "(PLAY m2 nil)");
        assert_eq!(status, 200);
        assert_eq!(rx.recv().unwrap(), "play None");
    }
    assert_eq!(post(addr, "1.1", "(STOP m2 nil)"), (200, "done".into()));
    assert_eq!(rx.recv().unwrap(), "stop None");
}

#[test]
fn garbage_gets_http_errors_and_the_server_goes_on() {
    let (addr, _rx) = server();
    assert_eq!(post(addr, "1.1", "(PLAY").0, 400);
    assert_eq!(post(addr, "1.1", "(DANCE m1)").0, 400);
    assert_eq!(post(addr, "1.1", "(PLAY nobody nil)").0, 500);
    assert_eq!(post(addr, "1.1", "(START m r ((broken)) 10 2)").0, 500);
    assert_eq!(raw(addr, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").0, 405);
    assert_eq!(raw(addr, b"OPTIONS / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").0, 200);
    let _ = raw(addr, b"\x00\xff garbage that is not HTTP at all\r\n\r\n");
    let _ = raw(addr, b"POST / HTTP/1.1\r\nContent-Length: 99999\r\n\r\n(INFO)");
    let mut bytes = b"POST / HTTP/1.1\r\nContent-Length: 4\r\nConnection: close\r\n\r\n".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0x28, 0x29]);
    assert_eq!(raw(addr, &bytes).0, 400);
    // Still there, and no match was left half started.
    assert_eq!(post(addr, "1.0", "(INFO)"), (200, "((name latchkey) (status available))".into()));
    // Clocks longer than the machine's clock can count to are taken, and the match ends as any.
    let forever = "(START big r ((role r)) 18446744073709551615 18446744073709551615)";
    assert_eq!(post(addr, "1.1", forever), (200, "ready".into()));
    assert_eq!(post(addr, "1.1", "(ABORT big)"), (200, "aborted".into()));
    assert_eq!(post(addr, "1.0", "(INFO)"), (200, "((name latchkey) (status available))".into()));
}
