//! A player on another machine, spoken to over the GGP protocol: the referee posts it the same
//! messages a game server would, and waits for each answer no longer than the clock allows.

use crate::{Clocks, MatchInfo, Player, PlayerError};
use ggp::{Message, Start};
use std::time::{Duration, Instant};

/// How long after a clock runs out the answer is still awaited: the referee records the move as
/// late, but a player that answers at all keeps the match in step.
const GRACE: Duration = Duration::from_secs(2);

/// A GGP player at an `http://host:port` address.
pub struct Remote {
    url: String,
    agent: ureq::Agent,
    id: Option<String>,
}

impl Remote {
    /// A player at `url` (`http://host:port`).
    pub fn new(url: &str) -> Remote {
        // Error statuses are read as answers, so their text reaches the report.
        let config = ureq::Agent::config_builder().http_status_as_error(false).build();
        Remote { url: url.to_owned(), agent: config.into(), id: None }
    }

    /// Posts `message` and returns the answer's text, waiting until `deadline` (and a grace).
    fn send(&self, message: &Message, deadline: Instant) -> Result<String, PlayerError> {
        let fail = |source: ureq::Error| PlayerError::Http { url: self.url.clone(), source };
        let wait = deadline.saturating_duration_since(Instant::now()) + GRACE;
        let mut response = self
            .agent
            .post(&self.url)
            .config()
            .timeout_global(Some(wait))
            .build()
            .header("Content-Type", "text/acl")
            .send(message.to_string())
            .map_err(fail)?;
        let status = response.status();
        let text = response.body_mut().read_to_string().map_err(fail)?;
        if !status.is_success() {
            return Err(PlayerError::Status {
                url: self.url.clone(),
                status: status.as_u16(),
                body: text.trim().to_owned(),
            });
        }
        Ok(text.trim().to_owned())
    }

    /// Asks the player for its `INFO` and returns the answer, waiting at most `wait` (and a
    /// grace): whether a player is up and speaks the protocol.
    pub fn info(&self, wait: Duration) -> Result<String, PlayerError> {
        self.send(&Message::Info, Instant::now() + wait)
    }
}

impl Player for Remote {
    fn name(&self) -> &str {
        &self.url
    }

    fn over_protocol(&self) -> bool {
        true
    }

    fn reachable(&self, wait: Duration) -> Result<(), PlayerError> {
        self.info(wait).map(|_| ())
    }

    fn start(&mut self, info: &MatchInfo, deadline: Instant) -> Result<(), PlayerError> {
        let rules = ggp::canonical_rules(&info.game.name, &info.game.rules)?;
        // A clock is refused rather than rounded: the player is judged by the clock it is told.
        crate::whole_seconds(Clocks { start: info.start_clock, play: info.play_clock }, &self.url)?;
        let start = Start {
            id: info.id.clone(),
            role: info.role.clone(),
            rules,
            start_clock: info.start_clock.as_secs(),
            play_clock: info.play_clock.as_secs(),
        };
        let reply = self.send(&Message::Start(start), deadline)?;
        if !reply.eq_ignore_ascii_case("ready") {
            return Err(PlayerError::NotReady { url: self.url.clone(), reply });
        }
        self.id = Some(info.id.clone());
        Ok(())
    }

    fn play(&mut self, last: Option<&[String]>, deadline: Instant) -> Result<String, PlayerError> {
        let id = self.id.clone().ok_or(PlayerError::NotStarted)?;
        self.send(&Message::Play { id, moves: last.map(<[String]>::to_vec) }, deadline)
    }

    fn stop(&mut self, last: Option<&[String]>) -> Result<(), PlayerError> {
        let Some(id) = self.id.take() else { return Ok(()) };
        self.send(&Message::Stop { id, moves: last.map(<[String]>::to_vec) }, Instant::now() + Duration::from_secs(5))
            .map(drop)
    }
}
