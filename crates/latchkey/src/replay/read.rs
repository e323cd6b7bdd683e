//! Records of played matches, in the three forms `latchkey replay` reads: a `latchkey match
//! --json` report, a tournament's JSON Lines journal, and GGP-Base's match JSON (what its game
//! server and Tiltyard keep).

use anyhow::{bail, Context, Result};
use player::MatchRecord;
use serde::Deserialize;
use std::path::Path;

/// One match as recorded, whatever the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// Where the rules are: a path or a bundled game's name, as the record gives it (`None`
    /// where it names no game).
    pub game: Option<String>,
    /// The game's name for titles, where the record gives one.
    pub name: Option<String>,
    /// The match's title: its number, or its identifier.
    pub title: String,
    /// The player in each role.
    pub players: Vec<String>,
    /// The joint moves, in KIF, one per role.
    pub moves: Vec<Vec<String>>,
    /// The goal values at the end, where recorded.
    pub goals: Option<Vec<u32>>,
    /// Seconds each role's player took, per step (0 is the start), where recorded; a single
    /// value per step where only the joint move was timed.
    pub times: Vec<Vec<f64>>,
    /// What each role's player expected to score after its move, per move, where recorded.
    pub expected: Vec<Vec<Option<f64>>>,
    /// Faults: the step (0 is the start), the role and what went wrong.
    pub faults: Vec<(usize, usize, String)>,
}

/// The matches recorded in `text`, read from `path`.
pub fn read(path: &Path, text: &str) -> Result<Vec<Recorded>> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.contains("\"kind\"") && first.contains("\"tournament\"") {
        return journal(path);
    }
    let value: serde_json::Value =
        serde_json::from_str(text).with_context(|| format!("{} is not JSON (nor JSON Lines)", path.display()))?;
    if value.get("matches").is_some() && value.get("standings").is_some() {
        return report(value).with_context(|| format!("{} is not a `latchkey match --json` report", path.display()));
    }
    if value.get("states").is_some() && value.get("moves").is_some() {
        return ggp_base(value).with_context(|| format!("{} is not a GGP-Base match", path.display()));
    }
    bail!(
        "{} is none of what replay reads: a `latchkey match --json` report, a tournament journal, a GGP-Base match JSON",
        path.display()
    )
}

/// A match record of ours, with the players in its roles.
fn recorded(game: Option<String>, name: &str, title: String, players: Vec<String>, r: MatchRecord) -> Recorded {
    Recorded {
        game,
        name: Some(name.to_owned()),
        title,
        players,
        faults: r.faults.iter().map(|f| (f.step, f.role, f.to_string())).collect(),
        goals: Some(r.goals),
        moves: r.moves,
        times: r.times,
        expected: r.expected,
    }
}

/// A `latchkey match --json` report.
fn report(value: serde_json::Value) -> Result<Vec<Recorded>> {
    #[derive(Deserialize)]
    struct Standing {
        player: String,
    }
    #[derive(Deserialize)]
    struct Report {
        schema: u32,
        game: String,
        #[serde(default)]
        rules: Option<String>,
        matches: Vec<MatchRecord>,
        standings: Vec<Standing>,
    }
    let report: Report = serde_json::from_value(value)?;
    if report.schema != 2 {
        bail!("report schema {}; replay reads schema 2", report.schema);
    }
    let names: Vec<String> = report.standings.into_iter().map(|s| s.player).collect();
    Ok(report
        .matches
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let players =
                m.seats.iter().map(|&p| names.get(p).cloned().unwrap_or_else(|| format!("player {p}"))).collect();
            let rules = report.rules.clone().unwrap_or_else(|| report.game.clone());
            recorded(Some(rules), &report.game, format!("match {}", i + 1), players, m)
        })
        .collect())
}

/// A tournament's journal; each match's game is found among the games as the tournament was
/// given them, a relative path read from the journal's folder where it is not found from here.
fn journal(path: &Path) -> Result<Vec<Recorded>> {
    let (settings, played) = tournament::Journal::read(path)?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let spec = |name: &str| -> Option<String> {
        let given = settings.games.iter().find(|g| {
            Path::new(g).file_stem().is_some_and(|s| s.to_string_lossy() == name) || g.eq_ignore_ascii_case(name)
        })?;
        let beside = folder.join(given);
        match !Path::new(given).exists() && beside.is_file() {
            true => Some(beside.to_string_lossy().into_owned()),
            false => Some(given.clone()),
        }
    };
    Ok(played
        .into_iter()
        .map(|p| {
            let title =
                format!("round {}, {} against {}, seating {}", p.round + 1, p.pairing[0], p.pairing[1], p.turn + 1);
            recorded(spec(&p.game), &p.game, title, p.players, p.record)
        })
        .collect())
}

/// GGP-Base's match JSON: the moves as its server printed them, the errors per step and role
/// (the first row for the start), the moments each state was reached (milliseconds).
fn ggp_base(value: serde_json::Value) -> Result<Vec<Recorded>> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Match {
        #[serde(default)]
        match_id: String,
        moves: Vec<Vec<String>>,
        #[serde(default)]
        errors: Vec<Vec<String>>,
        #[serde(default)]
        goal_values: Option<Vec<u32>>,
        #[serde(default)]
        player_names_from_host: Vec<String>,
        #[serde(default)]
        state_times: Vec<u64>,
        #[serde(default, rename = "gameMetaURL")]
        game_meta_url: Option<String>,
        #[serde(default)]
        start_time: Option<u64>,
    }
    let m: Match = serde_json::from_value(value)?;
    // ".../games/ticTacToe/v0/" names the game ticTacToe.
    let game = m.game_meta_url.as_deref().and_then(|url| {
        let parts: Vec<&str> = url.trim_end_matches('/').rsplit('/').collect();
        let name = if parts.first()?.starts_with('v') && parts.len() > 1 { parts[1] } else { parts[0] };
        (!name.is_empty()).then(|| name.to_owned())
    });
    let roles = m.moves.first().map_or(m.player_names_from_host.len(), Vec::len);
    let players = (0..roles)
        .map(|r| {
            m.player_names_from_host
                .get(r)
                .filter(|n| !n.is_empty())
                .cloned()
                .unwrap_or_else(|| format!("player {}", r + 1))
        })
        .collect();
    let span = |from: u64, to: u64| vec![to.saturating_sub(from) as f64 / 1000.0];
    let start = match (m.start_time, m.state_times.first()) {
        (Some(from), Some(&to)) => span(from, to),
        _ => Vec::new(),
    };
    let times = std::iter::once(start).chain(m.state_times.windows(2).map(|w| span(w[0], w[1]))).collect();
    let faults = m
        .errors
        .iter()
        .enumerate()
        .flat_map(|(step, row)| {
            row.iter().enumerate().filter(|(_, e)| !e.is_empty()).map(move |(role, e)| (step, role, e.clone()))
        })
        .collect();
    Ok(vec![Recorded {
        name: game.clone(),
        game,
        title: if m.match_id.is_empty() { "match".to_owned() } else { m.match_id },
        players,
        moves: m.moves,
        goals: m.goal_values,
        times,
        expected: Vec::new(),
        faults,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ggp_base_match_is_read_with_its_game_times_and_errors() {
        let text = r#"{"matchId":"m.1","gameMetaURL":"http://games.ggp.org/base/games/ticTacToe/v0/",
            "moves":[["( mark 1 1 )","noop"],["noop","( mark 2 2 )"]],"states":["( )","( )","( )"],
            "errors":[["",""],["","TO"],["",""]],"goalValues":[0,0],"playerNamesFromHost":["a",""],
            "startTime":1000,"stateTimes":[3000,3500,4250]}"#;
        let read = read(Path::new("m.json"), text).unwrap();
        assert_eq!(read.len(), 1);
        let m = &read[0];
        assert_eq!(m.game.as_deref(), Some("ticTacToe"));
        assert_eq!(m.title, "m.1");
        assert_eq!(m.players, ["a", "player 2"]);
        assert_eq!(m.moves[0], ["( mark 1 1 )", "noop"]);
        assert_eq!(m.times, [vec![2.0], vec![0.5], vec![0.75]]);
        assert_eq!(m.faults, [(1, 1, "TO".to_owned())]);
        assert_eq!(m.goals, Some(vec![0, 0]));
    }

    #[test]
    fn what_is_not_a_record_is_refused_with_the_reason() {
        let err = read(Path::new("x.json"), "{\"a\": 1}").unwrap_err().to_string();
        assert!(err.contains("x.json is none of what replay reads"), "{err}");
        let err = read(Path::new("x.json"), "(role x)").unwrap_err().to_string();
        assert!(err.contains("x.json is not JSON"), "{err}");
        let err =
            format!("{:#}", read(Path::new("r.json"), "{\"schema\":1,\"matches\":[],\"standings\":[]}").unwrap_err());
        assert!(err.contains("not a `latchkey match --json` report"), "{err}");
    }
}
