//! Fuzzing the protocol: random and mutated messages never panic the reader, and the server,
//! fed random bytes, mutated messages, huge, truncated and slow requests, keeps answering.

use ggp::{Handler, HandlerError, Message, Server, ServerOptions, Start};
use proptest::prelude::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A valid message, from its parts.
fn message() -> impl Strategy<Value = Message> {
    let word = "[a-z][a-z0-9_]{0,6}";
    let term = prop_oneof![word.prop_map(String::from), (word, word).prop_map(|(f, a)| format!("({f} {a})"))];
    let moves = proptest::option::of(proptest::collection::vec(term, 1..4));
    prop_oneof![
        (word, word, 1u64..100, 1u64..100).prop_map(|(id, role, start_clock, play_clock)| {
            Message::Start(Start {
                id,
                role: role.clone(),
                rules: format!("(role {role})\n(init (p))\n"),
                start_clock,
                play_clock,
            })
        }),
        (word, moves.clone()).prop_map(|(id, moves)| Message::Play { id, moves }),
        (word, moves).prop_map(|(id, moves)| Message::Stop { id, moves }),
        word.prop_map(|id| Message::Abort { id: id.to_owned() }),
        Just(Message::Info),
    ]
}

/// A text changed at a few places: characters deleted, inserted or replaced.
fn mutated() -> impl Strategy<Value = String> {
    let edit = (any::<prop::sample::Index>(), 0u8..3, any::<char>());
    (message(), proptest::collection::vec(edit, 1..6)).prop_map(|(m, edits)| {
        let mut chars: Vec<char> = m.to_string().chars().collect();
        for (at, kind, c) in edits {
            let i = at.index(chars.len() + 1);
            match kind {
                0 if i < chars.len() => {
                    chars.remove(i);
                }
                1 => chars.insert(i, c),
                _ if i < chars.len() => chars[i] = c,
                _ => chars.push(c),
            }
        }
        chars.into_iter().collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_is_read_or_refused(text in any::<String>()) {
        let _ = Message::parse(&text);
    }

    #[test]
    fn random_bytes_are_read_or_refused(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Message::parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn valid_messages_read_back(m in message()) {
        prop_assert_eq!(Message::parse(&m.to_string()).unwrap(), m);
    }

    #[test]
    fn mutated_messages_are_read_or_refused_and_what_is_read_prints_back(text in mutated()) {
        if let Ok(m) = Message::parse(&text) {
            prop_assert_eq!(Message::parse(&m.to_string()).unwrap(), m);
        }
    }
}

/// A player that starts anything and plays `noop` at once.
struct Quick;

impl Handler for Quick {
    fn start(&mut self, _: &Start, _: Instant) -> Result<(), HandlerError> {
        Ok(())
    }
    fn play(&mut self, _: Option<&[String]>, _: Instant) -> Result<String, HandlerError> {
        Ok("noop".into())
    }
    fn stop(&mut self, _: Option<&[String]>) {}
    fn abort(&mut self) {}
    fn preview(&mut self, _: &str, _: Instant) {}
}

fn server(options: ServerOptions) -> SocketAddr {
    let server = Server::bind("127.0.0.1:0", Box::new(Quick), options).unwrap();
    let addr = server.local_addr().unwrap();
    std::thread::spawn(move || server.run());
    addr
}

/// Sends `bytes`, half-closes, and returns what came back (possibly nothing).
fn exchange(addr: SocketAddr, bytes: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = s.write_all(bytes);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn post(body: &[u8]) -> Vec<u8> {
    let mut request =
        format!("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())
            .into_bytes();
    request.extend_from_slice(body);
    request
}

/// The server says it is there and free, within a second.
fn answers_info(addr: SocketAddr) -> bool {
    let asked = Instant::now();
    let reply = exchange(addr, &post(b"(INFO)"));
    reply.contains("(status available)") && asked.elapsed() < Duration::from_secs(1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn the_server_answers_random_requests_and_goes_on(
        raw in proptest::collection::vec(any::<u8>(), 0..300),
        body in mutated(),
    ) {
        let addr = *SHARED;
        let _ = exchange(addr, &raw);
        let reply = exchange(addr, &post(body.as_bytes()));
        // Anything read as a message is answered (200 or the player's refusal); the rest is a
        // client error.
        prop_assert!(reply.is_empty() || reply.starts_with("HTTP/1.1 "), "{reply:?}");
        // A START among the mutants would leave a match running: end it.
        let _ = exchange(addr, &post(b"(ABORT m)"));
        if let Ok(Message::Start(s)) = Message::parse(&body) {
            let _ = exchange(addr, &post(format!("(ABORT {})", s.id).as_bytes()));
        }
        prop_assert!(answers_info(addr));
    }
}

static SHARED: std::sync::LazyLock<SocketAddr> = std::sync::LazyLock::new(|| server(ServerOptions::default()));

#[test]
fn huge_truncated_and_slow_requests_do_not_stop_the_server() {
    let addr = server(ServerOptions { max_body: 1 << 16, ..ServerOptions::default() });
    // A body past the limit is refused, however it ends.
    let huge = vec![b'('; 1 << 20];
    assert!(exchange(addr, &post(&huge)).starts_with("HTTP/1.1 413"));
    // A body shorter than it says, then silence: the server reads to the end and refuses it.
    let mut truncated = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n(INFO".to_vec();
    truncated.truncate(truncated.len() - 1);
    let _ = exchange(addr, &truncated);
    assert!(answers_info(addr));
    // Slow clients, a byte every 50 ms, do not hold others up.
    let slow: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                for &b in post(b"(INFO)").iter().take(40) {
                    if s.write_all(&[b]).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..5 {
        assert!(answers_info(addr), "INFO waited behind slow clients");
    }
    for s in slow {
        s.join().unwrap();
    }
    // Headers without end: the connection is dropped at some point, never the server.
    let endless: Vec<u8> =
        b"POST / HTTP/1.1\r\n".iter().chain(b"X-Pad: aaaaaaaa\r\n".repeat(20_000).iter()).copied().collect();
    let _ = exchange(addr, &endless);
    assert!(answers_info(addr));
}
