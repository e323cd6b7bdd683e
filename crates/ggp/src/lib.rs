//! The General Game Playing protocol as game servers speak it: KIF messages (`START`, `PLAY`,
//! `STOP`, `ABORT`, `INFO`, `PREVIEW`) posted over HTTP, and a server that hands them to a player.

#![warn(missing_docs)]

mod message;
mod server;

pub use message::{canonical_rules, moves_text, Message, ProtocolError, Start};
pub use server::{Handler, Server, ServerOptions};
