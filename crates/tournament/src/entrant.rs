//! The players of a tournament as given on the command line: a name and how to reach the player.

use crate::TournamentError;
use serde::Serialize;

/// How a tournament reaches a player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "spec")]
pub enum Kind {
    /// A player built into this program (`mcts`, `random`, `mcts:no-local`, …), made afresh for
    /// every match.
    Builtin(String),
    /// GGP players at these addresses, the same player served on each: a match takes free ones.
    Remote(Vec<String>),
    /// A command line that starts a GGP player on the port that replaces `{port}`, run by
    /// `sh -c`; as many are started as concurrent matches need.
    Command(String),
}

/// A player of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entrant {
    /// Its name in reports and the journal.
    pub name: String,
    /// How to reach it.
    #[serde(flatten)]
    pub kind: Kind,
}

impl Entrant {
    /// Reads a player spec: `[NAME=]SPEC`, where SPEC is a built-in player's spec,
    /// `http://host:port` (several joined by `+` for a pool of the same player), or
    /// `cmd:COMMAND` with `{port}` in it. Without a name, the spec names the player (numbered
    /// where two are alike).
    pub fn parse(text: &str) -> Result<(Option<String>, Kind), TournamentError> {
        let text = text.trim();
        let (name, spec) = match text.split_once('=') {
            // A name comes before the first colon, so `mcts:batch=8` names nothing.
            Some((name, spec))
                if !name.is_empty()
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                    && !text[..name.len()].contains(':') =>
            {
                (Some(name.to_owned()), spec.trim())
            }
            _ => (None, text),
        };
        let bad = |why: &str| TournamentError::Player { spec: text.to_owned(), why: why.to_owned() };
        let kind = if let Some(command) = spec.strip_prefix("cmd:") {
            if !command.contains("{port}") {
                return Err(bad("a cmd: player's command line must have {port} in it, where its port goes"));
            }
            Kind::Command(command.trim().to_owned())
        } else if spec.starts_with("http://") {
            let urls: Vec<String> = spec.split('+').map(|u| u.trim().to_owned()).collect();
            if let Some(u) = urls.iter().find(|u| !u.starts_with("http://") || u.len() <= "http://".len()) {
                return Err(bad(&format!("{u:?} is not an http://host:port address")));
            }
            Kind::Remote(urls)
        } else {
            // Refuse an unknown built-in player now rather than at the first match.
            player::create(spec, 0).map_err(|e| bad(&e.to_string()))?;
            Kind::Builtin(spec.to_owned())
        };
        Ok((name, kind))
    }

    /// The entrants for `specs`, named by their NAME= prefix or their spec, numbered where
    /// names repeat.
    pub fn all(specs: &[String]) -> Result<Vec<Entrant>, TournamentError> {
        let parsed = specs.iter().map(|s| Entrant::parse(s)).collect::<Result<Vec<_>, _>>()?;
        let labels: Vec<String> = parsed
            .iter()
            .map(|(name, kind)| match (name, kind) {
                (Some(name), _) => name.clone(),
                (None, Kind::Builtin(spec)) => spec.clone(),
                (None, Kind::Remote(urls)) => urls.join("+"),
                (None, Kind::Command(command)) => format!("cmd:{command}"),
            })
            .collect();
        let names = player::series::names(labels.iter().map(String::as_str));
        Ok(names.into_iter().zip(parsed).map(|(name, (_, kind))| Entrant { name, kind }).collect())
    }

    /// Whether the player speaks the GGP protocol (and so must be told whole seconds).
    pub fn over_protocol(&self) -> bool {
        !matches!(self.kind, Kind::Builtin(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_read_with_their_names() {
        assert_eq!(Entrant::parse("mcts:batch=8").unwrap(), (None, Kind::Builtin("mcts:batch=8".into())));
        assert_eq!(
            Entrant::parse("new=mcts:batch=8").unwrap(),
            (Some("new".into()), Kind::Builtin("mcts:batch=8".into()))
        );
        assert_eq!(
            Entrant::parse("sancho=cmd:peers/player.sh sancho {port}").unwrap(),
            (Some("sancho".into()), Kind::Command("peers/player.sh sancho {port}".into()))
        );
        assert_eq!(
            Entrant::parse("http://a:1+http://b:2").unwrap(),
            (None, Kind::Remote(vec!["http://a:1".into(), "http://b:2".into()]))
        );
        for bad in ["cmd:java -jar x.jar", "deepblue", "http://a:1+b:2", "x=http://"] {
            let e = Entrant::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad.trim_start_matches("x=")), "{e}");
        }
        let all = Entrant::all(&["mcts".into(), "mcts".into(), "old=mcts-plain".into()]).unwrap();
        let names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["mcts 1", "mcts 2", "old"]);
        assert!(!all[0].over_protocol());
    }
}
