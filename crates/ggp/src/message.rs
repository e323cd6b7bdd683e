//! Parsing and printing the protocol's messages. Keywords are case-insensitive; moves and rules
//! are kept as KIF text in lower case with single spaces, the form the propnet names moves in.

use gdl::SExpr;
use std::fmt;
use thiserror::Error;

/// A malformed message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProtocolError {
    /// The body is not a KIF s-expression.
    #[error("the message is not KIF: {0}")]
    Syntax(String),
    /// The message is KIF but not one the protocol knows, or its arguments are wrong.
    #[error("bad message: {0}")]
    Bad(String),
}

/// The `START` message: a new match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start {
    /// The match id.
    pub id: String,
    /// The role this player plays, lower case.
    pub role: String,
    /// The game's rules as KIF text, one rule per line.
    pub rules: String,
    /// Seconds before the first move is due.
    pub start_clock: u64,
    /// Seconds per move.
    pub play_clock: u64,
}

/// One message from a game server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A new match.
    Start(Start),
    /// A move is due; the previous joint move (one per role, in role order), `None` on the first.
    Play {
        /// The match id.
        id: String,
        /// The joint move just played.
        moves: Option<Vec<String>>,
    },
    /// The match is over; the last joint move.
    Stop {
        /// The match id.
        id: String,
        /// The joint move that ended it.
        moves: Option<Vec<String>>,
    },
    /// The match was cancelled.
    Abort {
        /// The match id.
        id: String,
    },
    /// Is the player there, and free?
    Info,
    /// A game to look at before matches of it are played.
    Preview {
        /// The rules as KIF text.
        rules: String,
        /// Seconds to look.
        clock: u64,
    },
}

impl Message {
    /// Reads a message body.
    pub fn parse(body: &str) -> Result<Message, ProtocolError> {
        let mut items = gdl::read_sexprs("message", body).map_err(|e| ProtocolError::Syntax(e.to_string()))?;
        let sexpr = match (items.pop(), items.is_empty()) {
            (Some(one), true) => one,
            (None, _) => return Err(ProtocolError::Bad("the message is empty".into())),
            (Some(_), false) => return Err(ProtocolError::Bad("more than one expression".into())),
        };
        // `INFO` may come bare or in parentheses.
        let (keyword, args): (&str, &[SExpr]) = match &sexpr {
            SExpr::Atom(word, _) => (word, &[]),
            SExpr::List(items, _) => match items.split_first() {
                Some((SExpr::Atom(word, _), args)) => (word, args),
                _ => return Err(ProtocolError::Bad("a message starts with its keyword".into())),
            },
            SExpr::Var(..) => return Err(ProtocolError::Bad("a message cannot be a variable".into())),
        };
        let keyword = keyword.to_ascii_uppercase();
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(ProtocolError::Bad(format!("{keyword} takes {n} arguments, not {}", args.len())))
            }
        };
        match keyword.as_str() {
            "START" => {
                arity(5)?;
                Ok(Message::Start(Start {
                    id: word(&args[0], "the match id")?,
                    role: word(&args[1], "the role")?.to_lowercase(),
                    rules: rules(&args[2])?,
                    start_clock: clock(&args[3])?,
                    play_clock: clock(&args[4])?,
                }))
            }
            "PLAY" => {
                arity(2)?;
                Ok(Message::Play { id: word(&args[0], "the match id")?, moves: moves(&args[1])? })
            }
            "STOP" => {
                arity(2)?;
                Ok(Message::Stop { id: word(&args[0], "the match id")?, moves: moves(&args[1])? })
            }
            "ABORT" => {
                arity(1)?;
                Ok(Message::Abort { id: word(&args[0], "the match id")? })
            }
            "INFO" => {
                arity(0)?;
                Ok(Message::Info)
            }
            "PREVIEW" => {
                arity(2)?;
                Ok(Message::Preview { rules: rules(&args[0])?, clock: clock(&args[1])? })
            }
            _ => Err(ProtocolError::Bad(format!("unknown message {keyword}"))),
        }
    }

    /// The match the message is about, if any.
    pub fn match_id(&self) -> Option<&str> {
        match self {
            Message::Start(s) => Some(&s.id),
            Message::Play { id, .. } | Message::Stop { id, .. } | Message::Abort { id } => Some(id),
            Message::Info | Message::Preview { .. } => None,
        }
    }
}

/// Prints the message as a game server sends it.
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Start(s) => write!(
                f,
                "(START {} {} ({}) {} {})",
                s.id,
                s.role,
                s.rules.lines().collect::<Vec<_>>().join(" "),
                s.start_clock,
                s.play_clock
            ),
            Message::Play { id, moves } => write!(f, "(PLAY {id} {})", moves_text(moves.as_deref())),
            Message::Stop { id, moves } => write!(f, "(STOP {id} {})", moves_text(moves.as_deref())),
            Message::Abort { id } => write!(f, "(ABORT {id})"),
            Message::Info => f.write_str("(INFO)"),
            Message::Preview { rules, clock } => {
                write!(f, "(PREVIEW ({}) {clock})", rules.lines().collect::<Vec<_>>().join(" "))
            }
        }
    }
}

/// A joint move as the protocol writes it: `nil`, or the moves in parentheses.
pub fn moves_text(moves: Option<&[String]>) -> String {
    match moves {
        None => "nil".to_owned(),
        Some(moves) => format!("({})", moves.join(" ")),
    }
}

/// KIF text in the canonical form: lower case, single spaces.
fn kif(sexpr: &SExpr) -> String {
    sexpr.to_string().to_lowercase()
}

fn word(sexpr: &SExpr, what: &str) -> Result<String, ProtocolError> {
    sexpr.atom().map(str::to_owned).ok_or_else(|| ProtocolError::Bad(format!("{what} must be a word, not {sexpr}")))
}

fn clock(sexpr: &SExpr) -> Result<u64, ProtocolError> {
    sexpr
        .atom()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| ProtocolError::Bad(format!("a clock must be a whole number of seconds, not {sexpr}")))
}

fn rules(sexpr: &SExpr) -> Result<String, ProtocolError> {
    let rules = sexpr.list().ok_or_else(|| ProtocolError::Bad("the rules must be a list".into()))?;
    Ok(rules_text(rules))
}

/// Rules in the form [`Start::rules`] holds them: one rule per line, canonical KIF.
fn rules_text(rules: &[SExpr]) -> String {
    rules.iter().map(|r| kif(r) + "\n").collect()
}

/// The rules of a GDL text (`label` names it in errors) as a message carries them: one rule per
/// line, comments gone, so that printing them on one line cannot let a comment swallow the rest.
pub fn canonical_rules(label: &str, text: &str) -> Result<String, ProtocolError> {
    let rules = gdl::read_sexprs(label, text).map_err(|e| ProtocolError::Syntax(e.to_string()))?;
    Ok(rules_text(&rules))
}

fn moves(sexpr: &SExpr) -> Result<Option<Vec<String>>, ProtocolError> {
    match sexpr {
        SExpr::Atom(w, _) if w.eq_ignore_ascii_case("nil") => Ok(None),
        SExpr::List(items, _) if !items.is_empty() => Ok(Some(items.iter().map(kif).collect())),
        _ => Err(ProtocolError::Bad(format!("moves must be nil or a list of moves, not {sexpr}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_read_case_insensitively() {
        let m = Message::parse("(start M1 XPlayer ((ROLE xplayer) (<= (legal ?r noop) (role ?r))) 30 10)").unwrap();
        let Message::Start(s) = m else { panic!("{m:?}") };
        assert_eq!((s.id.as_str(), s.role.as_str(), s.start_clock, s.play_clock), ("M1", "xplayer", 30, 10));
        assert_eq!(s.rules, "(role xplayer)\n(<= (legal ?r noop) (role ?r))\n");
        gdl::parse("start", &s.rules).expect("the rules read back");
    }

    #[test]
    fn play_stop_abort_info_preview() {
        assert_eq!(Message::parse("(PLAY m nil)").unwrap(), Message::Play { id: "m".into(), moves: None });
        assert_eq!(
            Message::parse("(play m ((MARK 1  1) noop))").unwrap(),
            Message::Play { id: "m".into(), moves: Some(vec!["(mark 1 1)".into(), "noop".into()]) }
        );
        assert_eq!(
            Message::parse("(STOP m (a b))").unwrap(),
            Message::Stop { id: "m".into(), moves: Some(vec!["a".into(), "b".into()]) }
        );
        assert_eq!(Message::parse("( abort m )").unwrap(), Message::Abort { id: "m".into() });
        assert_eq!(Message::parse("(INFO)").unwrap(), Message::Info);
        assert_eq!(Message::parse("info").unwrap(), Message::Info);
        assert_eq!(
            Message::parse("(PREVIEW ((role r)) 5)").unwrap(),
            Message::Preview { rules: "(role r)\n".into(), clock: 5 }
        );
    }

    #[test]
    fn canonical_rules_survive_a_message_on_one_line() {
        let rules = canonical_rules("game", "; roles\n(ROLE r) ; the only one\n(init (p))\n").unwrap();
        assert_eq!(rules, "(role r)\n(init (p))\n");
        let start = Start { id: "m".into(), role: "r".into(), rules, start_clock: 10, play_clock: 5 };
        let m = Message::Start(start);
        assert_eq!(Message::parse(&m.to_string()).unwrap(), m);
        assert!(canonical_rules("game", "(role r").is_err());
    }

    #[test]
    fn printed_messages_read_back() {
        for text in ["(START m r ((role r) (init p)) 10 5)", "(PLAY m nil)", "(STOP m ((a 1) b))", "(ABORT m)"] {
            let m = Message::parse(text).unwrap();
            assert_eq!(Message::parse(&m.to_string()).unwrap(), m);
        }
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for text in [
            "",
            "(",
            ")",
            "(PLAY m)",
            "(PLAY m ())",
            "(START m r rules 10 5)",
            "(START m r () ten 5)",
            "(START m r () -1 5)",
            "(HELLO)",
            "(INFO) (INFO)",
            "?x",
            "((PLAY) m nil)",
            "(PLAY (m) nil)",
        ] {
            assert!(Message::parse(text).is_err(), "{text:?} was accepted");
        }
    }
}
