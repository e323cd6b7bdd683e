//! The General Game Playing protocol as game servers speak it: KIF messages (`START`, `PLAY`,
//! `STOP`, `ABORT`, `INFO`, `PREVIEW`) posted over HTTP, and a server that hands them to a player.

#![warn(missing_docs)]

mod message;
mod server;

pub use message::{canonical_rules, moves_text, Message, ProtocolError, Start};
pub use server::{Handler, HandlerError, Server, ServerOptions};

/// An error and every cause under it on one line (`a: b: c`), as an answer over HTTP, a log
/// line or a match report shows it.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn chains_print_every_cause_once() {
        let e = Outer(std::io::Error::other("inner"));
        assert_eq!(super::error_chain(&e), "outer: inner");
    }
}
