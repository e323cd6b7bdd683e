//! The ledger of a tournament's results, kept as matches end: per pairing the first player's
//! wins, draws and losses, the units (seat-swapped pairs, or rotations of the seats) it scored,
//! the SPRT's log-likelihood ratio and verdict; per player its points, faults and rating.

use crate::{Entrant, Played, Settings};
use player::{End, Fault};
use serde::Serialize;
use stats::{Estimate, Sprt, Tally, Verdict};
use std::collections::{BTreeMap, HashMap};

/// A pairing's results.
#[derive(Debug, Clone, Serialize)]
pub struct PairingReport {
    /// The two players, the first the one the scores are of.
    pub players: [String; 2],
    /// Matches played.
    pub matches: usize,
    /// Matches the first player scored more than the second.
    pub wins: usize,
    /// Matches they scored alike.
    pub draws: usize,
    /// Matches the second player scored more.
    pub losses: usize,
    /// Each player's mean goal value (the second's over the seats it held).
    pub points: [f64; 2],
    /// The share of drawn matches.
    pub draw_rate: f64,
    /// Complete units: seat-swapped pairs (or rotations of the seats) of the same game and seed.
    pub units: u64,
    /// The first player's score per match with its 95% interval, the Elo difference with its
    /// interval and the likelihood of superiority, from the units (from single matches where
    /// games of different numbers of roles were mixed).
    pub estimate: Option<Estimate>,
    /// The pentanomial counts of the pairs, from the first player's side: pairs that scored
    /// 0, ½, 1, 1½ and 2 points (LL, LD, WL + DD, WD, WW); only where every game has two roles.
    pub pentanomial: Option<Vec<u64>>,
    /// The SPRT's log-likelihood ratio, if one was run.
    pub llr: Option<f64>,
    /// Its bounds.
    pub bounds: Option<[f64; 2]>,
    /// What it says.
    pub verdict: Option<Verdict>,
    /// The matches played when it decided.
    pub decided_after: Option<usize>,
    /// How the matches ended: `terminal`, `step_limit`, `no_legal_move`, counted.
    pub ends: BTreeMap<String, usize>,
}

/// A player's results over the whole tournament.
#[derive(Debug, Clone, Serialize)]
pub struct Standing {
    /// Its name.
    pub player: String,
    /// Matches played.
    pub matches: usize,
    /// Its mean goal value over the seats it held.
    pub points: f64,
    /// Its Bradley–Terry rating, the first player anchored at 0, with a 95% interval.
    pub rating: stats::Rating,
    /// Answers that came late.
    pub late: usize,
    /// Moves that were not legal.
    pub illegal: usize,
    /// Requests it failed to answer.
    pub errors: usize,
}

/// A tournament's results.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// What was asked.
    pub settings: Settings,
    /// Every pairing.
    pub pairings: Vec<PairingReport>,
    /// Every player, in the order given.
    pub standings: Vec<Standing>,
    /// Matches played in all.
    pub matches: usize,
    /// Whether the tournament was interrupted before it ended.
    pub interrupted: bool,
    /// The journal's path.
    pub journal: String,
}

/// A pairing's running totals.
struct Pairing {
    players: [usize; 2],
    matches: usize,
    outcomes: [usize; 3],
    points: [(f64, usize); 2],
    /// Units by their number of matches.
    units: BTreeMap<u32, Tally>,
    /// Every match as a unit of its own, for mixed games.
    singles: Tally,
    /// Units under way: the half-points of the turns played so far.
    partial: HashMap<(String, usize), Vec<u32>>,
    decided: Option<(Verdict, usize)>,
    ends: BTreeMap<String, usize>,
}

/// Every result so far.
pub struct Ledger {
    entrants: Vec<Entrant>,
    pairings: Vec<Pairing>,
    sprt: Option<Sprt>,
    /// Per entrant: seats held, goal points, faults (late, illegal, errors).
    seats: Vec<(usize, f64, [usize; 3])>,
    matches: Vec<(usize, usize, f64)>,
    played: usize,
}

impl Ledger {
    /// An empty ledger of the pairings `pairings` of `entrants`, with an SPRT per pairing if given.
    pub fn new(entrants: Vec<Entrant>, pairings: &[(usize, usize)], sprt: Option<Sprt>) -> Ledger {
        let pairings = pairings
            .iter()
            .map(|&(a, b)| Pairing {
                players: [a, b],
                matches: 0,
                outcomes: [0; 3],
                points: [(0.0, 0); 2],
                units: BTreeMap::new(),
                singles: Tally::new(1),
                partial: HashMap::new(),
                decided: None,
                ends: BTreeMap::new(),
            })
            .collect();
        let seats = vec![(0, 0.0, [0; 3]); entrants.len()];
        Ledger { entrants, pairings, sprt, seats, matches: Vec::new(), played: 0 }
    }

    /// The index of the pairing of the two players named.
    pub fn pairing(&self, names: &[String; 2]) -> Option<usize> {
        let index = |name: &String| self.entrants.iter().position(|e| &e.name == name);
        let (a, b) = (index(&names[0])?, index(&names[1])?);
        self.pairings.iter().position(|p| p.players == [a, b])
    }

    /// Whether the pairing's SPRT has decided.
    pub fn decided(&self, pairing: usize) -> bool {
        self.pairings[pairing].decided.is_some()
    }

    /// Counts a finished match of pairing `p`; returns whether it completed a unit.
    pub fn record(&mut self, p: usize, played: &Played) -> bool {
        self.played += 1;
        let pairing = &mut self.pairings[p];
        let [a, b] = pairing.players;
        let goals = &played.record.goals;
        let first = f64::from(goals[played.turn]);
        let best_other = goals.iter().enumerate().filter(|&(r, _)| r != played.turn).map(|(_, &g)| g).max();
        let half = match best_other.map(|o| goals[played.turn].cmp(&o)) {
            Some(std::cmp::Ordering::Greater) => 2,
            Some(std::cmp::Ordering::Equal) | None => 1,
            Some(std::cmp::Ordering::Less) => 0,
        };
        pairing.matches += 1;
        pairing.outcomes[2 - half as usize] += 1;
        pairing.singles.add(half);
        pairing.points[0].0 += first;
        pairing.points[0].1 += 1;
        for (r, &g) in goals.iter().enumerate() {
            let e = if r == played.turn { a } else { b };
            if r != played.turn {
                pairing.points[1].0 += f64::from(g);
                pairing.points[1].1 += 1;
            }
            self.seats[e].0 += 1;
            self.seats[e].1 += f64::from(g);
        }
        for f in &played.record.faults {
            let e = if f.role == played.turn { a } else { b };
            let kind = match f.fault {
                Fault::Late => 0,
                Fault::Illegal(_) => 1,
                Fault::Error(_) => 2,
            };
            self.seats[e].2[kind] += 1;
        }
        let end = match played.record.end {
            End::Terminal => "terminal",
            End::StepLimit => "step_limit",
            End::NoLegalMove => "no_legal_move",
        };
        *pairing.ends.entry(end.to_owned()).or_default() += 1;
        self.matches.push((a, b, f64::from(half) / 2.0));

        let size = played.roles.len();
        let unit = pairing.partial.entry((played.game.clone(), played.round)).or_default();
        unit.push(half);
        if unit.len() < size {
            return false;
        }
        let total = unit.iter().sum();
        pairing.partial.remove(&(played.game.clone(), played.round));
        pairing.units.entry(size as u32).or_insert_with(|| Tally::new(size as u32)).add(total);
        if let (Some(sprt), None) = (&self.sprt, pairing.decided) {
            let llr = pairing.llr(sprt);
            match sprt.verdict(llr) {
                Verdict::Continue => {}
                verdict => pairing.decided = Some((verdict, pairing.matches)),
            }
        }
        true
    }

    /// Pairing `p`'s report so far.
    pub fn pairing_report(&self, p: usize) -> PairingReport {
        let pairing = &self.pairings[p];
        let [a, b] = pairing.players;
        let mean = |(sum, n): (f64, usize)| if n == 0 { 0.0 } else { sum / n as f64 };
        let estimate = match pairing.units.len() {
            1 => pairing.units.values().next().and_then(|t| t.estimate(0.95)),
            _ => pairing.singles.estimate(0.95),
        };
        let pentanomial = match (pairing.units.len(), pairing.units.get(&2)) {
            (1, Some(t)) => Some(t.counts().to_vec()),
            _ => None,
        };
        PairingReport {
            players: [self.entrants[a].name.clone(), self.entrants[b].name.clone()],
            matches: pairing.matches,
            wins: pairing.outcomes[0],
            draws: pairing.outcomes[1],
            losses: pairing.outcomes[2],
            points: [mean(pairing.points[0]), mean(pairing.points[1])],
            draw_rate: if pairing.matches == 0 { 0.0 } else { pairing.outcomes[1] as f64 / pairing.matches as f64 },
            units: pairing.units.values().map(Tally::units).sum(),
            estimate,
            pentanomial,
            llr: self.sprt.as_ref().map(|s| pairing.llr(s)),
            bounds: self.sprt.as_ref().map(Sprt::bounds),
            verdict: self.sprt.as_ref().map(|_| pairing.decided.map_or(Verdict::Continue, |(v, _)| v)),
            decided_after: pairing.decided.map(|(_, n)| n),
            ends: pairing.ends.clone(),
        }
    }

    /// The whole report.
    pub fn report(&self, settings: &Settings, interrupted: bool, journal: String) -> Report {
        let ratings = stats::fit_ratings(self.entrants.len(), &self.matches, 0, 2.0, 0.95);
        let standings = self
            .entrants
            .iter()
            .zip(&self.seats)
            .zip(ratings)
            .enumerate()
            .map(|(e, ((entrant, &(seats, points, [late, illegal, errors])), rating))| Standing {
                player: entrant.name.clone(),
                matches: self.matches.iter().filter(|&&(a, b, _)| a == e || b == e).count(),
                points: if seats == 0 { 0.0 } else { points / seats as f64 },
                rating,
                late,
                illegal,
                errors,
            })
            .collect();
        Report {
            settings: settings.clone(),
            pairings: (0..self.pairings.len()).map(|p| self.pairing_report(p)).collect(),
            standings,
            matches: self.played,
            interrupted,
            journal,
        }
    }
}

impl Pairing {
    /// The log-likelihood ratio over every complete unit: the sum over the unit sizes, each a
    /// test of the same hypotheses on samples of its own.
    fn llr(&self, sprt: &Sprt) -> f64 {
        self.units.values().map(|t| sprt.llr(t)).sum()
    }
}
