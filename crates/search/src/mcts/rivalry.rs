//! The search's score of a finished game where goals are not simply shared out: a role's goal
//! value plus a small bonus for every other role it ties and twice that for every role it beats,
//! rescaled to 0..=100. Where a win is worth no more points than a draw (ticTacToeParallel: a
//! line on one board scores its maker 50 and the other 0, two drawn boards 50 each), a search
//! that weighs goal values alone takes an opponent to be indifferent between completing its
//! line and playing on, and lets it; with the bonus the line is worth a little more to its
//! maker, as to any opponent that plays to win. In a game of two roles proved zero-sum the bonus
//! only stretches the scale (a higher goal always beats the other role), so it is left out there;
//! where every game ends in a win (100 to 0) or a draw it changes no score. Playouts cut off
//! before the end keep their estimated scores.

/// The bonus and the scale it needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rivalry {
    /// Points for each other role tied; twice as many for each beaten.
    bonus: f64,
    /// The points of a role that beats every other.
    most: f64,
    /// Makes the best goal with every other role beaten 100.
    scale: f64,
}

impl Rivalry {
    /// The rivalry of a game of `roles` roles with `bonus` points per role tied (none where the
    /// bonus is 0 or not positive, there is one role, or the game is `zero_sum`).
    pub fn new(bonus: f64, roles: usize, zero_sum: bool) -> Option<Rivalry> {
        let most = 2.0 * bonus * (roles.saturating_sub(1)) as f64;
        (bonus > 0.0 && roles > 1 && !zero_sum).then(|| Rivalry { bonus, most, scale: 100.0 / (100.0 + most) })
    }

    /// Every role's score for a game that ended with `goals` (0..=100 each).
    pub fn scores(&self, goals: &[u8]) -> Box<[u8]> {
        goals
            .iter()
            .map(|&own| {
                let beaten: usize = goals.iter().map(|&other| usize::from(own > other) * 2).sum();
                // Each role ties itself once.
                let tied = goals.iter().filter(|&&other| own == other).count() - 1;
                let points = f64::from(own) + self.bonus * (beaten + tied) as f64;
                (points * self.scale).round().min(100.0) as u8
            })
            .collect()
    }

    /// The scores a role's goal range `(lo, hi)` allows: from its lowest goal with no bonus to
    /// its highest with every other role beaten.
    pub fn range(&self, (lo, hi): (u8, u8)) -> (u8, u8) {
        let lo = (f64::from(lo) * self.scale).floor();
        let hi = ((f64::from(hi) + self.most) * self.scale).ceil().min(100.0);
        (lo as u8, hi as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_scores_more_than_a_draw_of_the_same_goal() {
        let r = Rivalry::new(2.0, 2, false).expect("a rivalry");
        assert_eq!(&*r.scores(&[50, 0]), &[52, 0]);
        assert_eq!(&*r.scores(&[50, 50]), &[50, 50]);
        assert_eq!(&*r.scores(&[100, 0]), &[100, 0]);
        assert_eq!(&*r.scores(&[100, 100]), &[98, 98]);
        // Three roles: beating both is worth 8 points, tying one and beating one 6.
        let three = Rivalry::new(2.0, 3, false).expect("a rivalry");
        assert_eq!(&*three.scores(&[50, 50, 0]), &[52, 52, 0]);
        assert_eq!(&*three.scores(&[100, 0, 0]), &[100, 2, 2]);
    }

    #[test]
    fn ranges_bound_every_score_they_allow() {
        let r = Rivalry::new(2.0, 2, false).expect("a rivalry");
        for lo in (0..=100).step_by(5) {
            for hi in (lo..=100).step_by(5) {
                let (a, b) = r.range((lo, hi));
                for own in (lo..=hi).step_by(5) {
                    for other in (0..=100).step_by(5) {
                        let s = r.scores(&[own, other])[0];
                        assert!(a <= s && s <= b, "{own} against {other}: {s} outside {a}..={b}");
                    }
                }
            }
        }
    }

    #[test]
    fn no_rivalry_alone_without_a_bonus_or_in_a_proved_zero_sum_game() {
        assert!(Rivalry::new(2.0, 1, false).is_none());
        assert!(Rivalry::new(0.0, 2, false).is_none());
        assert!(Rivalry::new(2.0, 2, true).is_none());
    }
}
