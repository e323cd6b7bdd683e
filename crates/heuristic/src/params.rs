//! The knobs of the fuzzy evaluation (chapter 16.2 and 16.4): the truth value τ of a `true(p)`
//! atom whose proposition holds, the optional threshold θ, and the t-norm (conjunction) with its
//! dual t-conorm (disjunction). Evaluation is generic over [`Logic`] so that the inner loops are
//! compiled once per t-norm instead of branching on it at every gate.

use serde::Serialize;
use std::fmt;
use thiserror::Error;

/// The t-norm that evaluates conjunctions; disjunctions use its dual t-conorm. Printed (and
/// serialised) as `product` or `yager q=Q`, `Q` possibly `inf`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Norm {
    /// `T(a, b) = a·b`, with the disjunction `1 − (1 − a)(1 − b)` (the chapter's example).
    Product,
    /// The Yager family with parameter `q` in `[0, ∞]`: `S(a, b) = min(1, (a^q + b^q)^(1/q))`
    /// and `T(a, b) = 1 − S(1 − a, 1 − b)`; `q = 0` is the drastic t-norm, `q = 1` Łukasiewicz's,
    /// `q = ∞` the minimum (with the maximum as disjunction).
    Yager(f64),
}

impl fmt::Display for Norm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Norm::Product => write!(f, "product"),
            Norm::Yager(q) => write!(f, "yager q={q}"),
        }
    }
}

impl Serialize for Norm {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // A string, because JSON has no infinity.
        s.collect_str(self)
    }
}

/// How formulas are evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Params {
    /// The degree of `true(p)` when `p` holds (`1 − tau` when it does not), `0.5 < tau < 1`.
    pub tau: f64,
    /// The threshold θ of chapter 16.4, `0.5 < theta <= tau`: a conjunction of two values above
    /// one half is at least θ, so a true conjunction stays above one half however long it is.
    pub theta: Option<f64>,
    /// The t-norm.
    pub norm: Norm,
}

impl Default for Params {
    /// The chapter's setting: τ = 0.9, the product t-norm, no threshold.
    fn default() -> Params {
        Params { tau: 0.9, theta: None, norm: Norm::Product }
    }
}

/// Why a set of parameters is refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ParamError {
    /// τ is outside (0.5, 1).
    #[error("tau must be greater than 0.5 and less than 1, not {0}")]
    Tau(f64),
    /// θ is outside (0.5, τ].
    #[error("theta must be greater than 0.5 and at most tau ({tau}), not {theta}")]
    Theta {
        /// The threshold given.
        theta: f64,
        /// The truth value it must not exceed.
        tau: f64,
    },
    /// The Yager parameter is negative or not a number.
    #[error("the Yager parameter q must be at least 0 (inf for the limit), not {0}")]
    YagerQ(f64),
}

impl Params {
    /// Checks the ranges the chapter requires (`NaN` fails every check).
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(self.tau > 0.5 && self.tau < 1.0) {
            return Err(ParamError::Tau(self.tau));
        }
        if let Some(theta) = self.theta {
            if !(theta > 0.5 && theta <= self.tau) {
                return Err(ParamError::Theta { theta, tau: self.tau });
            }
        }
        if let Norm::Yager(q) = self.norm {
            if q.is_nan() || q < 0.0 {
                return Err(ParamError::YagerQ(q));
            }
        }
        Ok(())
    }

    /// Calls `task` with the connectives these parameters select, as a concrete type.
    pub(crate) fn dispatch<T: WithLogic>(&self, task: T) -> T::Output {
        match self.theta {
            None => dispatch_norm(self.norm, task),
            Some(theta) => dispatch_norm(self.norm, Thresholded { theta, task }),
        }
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} t-norm, tau {}", self.norm, self.tau)?;
        match self.theta {
            Some(theta) => write!(f, ", threshold theta {theta}"),
            None => write!(f, ", no threshold"),
        }
    }
}

/// A t-norm and its t-conorm.
pub(crate) trait Logic: Copy {
    /// The degree of a conjunction.
    fn and(self, a: f64, b: f64) -> f64;
    /// The degree of a disjunction.
    fn or(self, a: f64, b: f64) -> f64;
}

/// Work to run with concrete connectives (see [`Params::dispatch`]).
pub(crate) trait WithLogic {
    type Output;
    fn run<L: Logic>(self, logic: L) -> Self::Output;
}

fn dispatch_norm<T: WithLogic>(norm: Norm, task: T) -> T::Output {
    match norm {
        Norm::Product => task.run(Product),
        Norm::Yager(0.0) => task.run(Drastic),
        Norm::Yager(1.0) => task.run(Lukasiewicz),
        Norm::Yager(f64::INFINITY) => task.run(MinMax),
        Norm::Yager(q) => task.run(Yager(q)),
    }
}

/// Wraps a task so that it runs with θ applied to whichever t-norm is chosen.
struct Thresholded<T> {
    theta: f64,
    task: T,
}

impl<T: WithLogic> WithLogic for Thresholded<T> {
    type Output = T::Output;
    fn run<L: Logic>(self, logic: L) -> T::Output {
        self.task.run(Threshold { theta: self.theta, inner: logic })
    }
}

#[derive(Clone, Copy)]
struct Product;

impl Logic for Product {
    fn and(self, a: f64, b: f64) -> f64 {
        a * b
    }
    fn or(self, a: f64, b: f64) -> f64 {
        1.0 - (1.0 - a) * (1.0 - b)
    }
}

/// Yager with `q = 0`: the conorm is the other value when one is 0, else 1.
#[derive(Clone, Copy)]
struct Drastic;

impl Logic for Drastic {
    fn and(self, a: f64, b: f64) -> f64 {
        1.0 - self.or(1.0 - a, 1.0 - b)
    }
    fn or(self, a: f64, b: f64) -> f64 {
        if a == 0.0 {
            b
        } else if b == 0.0 {
            a
        } else {
            1.0
        }
    }
}

/// Yager with `q = 1`.
#[derive(Clone, Copy)]
struct Lukasiewicz;

impl Logic for Lukasiewicz {
    fn and(self, a: f64, b: f64) -> f64 {
        (a + b - 1.0).max(0.0)
    }
    fn or(self, a: f64, b: f64) -> f64 {
        (a + b).min(1.0)
    }
}

/// Yager with `q = ∞`.
#[derive(Clone, Copy)]
struct MinMax;

impl Logic for MinMax {
    fn and(self, a: f64, b: f64) -> f64 {
        a.min(b)
    }
    fn or(self, a: f64, b: f64) -> f64 {
        a.max(b)
    }
}

/// Yager with any other `q > 0`.
#[derive(Clone, Copy)]
struct Yager(f64);

impl Logic for Yager {
    fn and(self, a: f64, b: f64) -> f64 {
        1.0 - self.or(1.0 - a, 1.0 - b)
    }
    fn or(self, a: f64, b: f64) -> f64 {
        // (a^q + b^q)^(1/q) written as hi·(1 + (lo/hi)^q)^(1/q): for large q, a^q alone would
        // underflow to 0 and lose the maximum the sum tends to.
        let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
        if hi == 0.0 {
            return 0.0;
        }
        (hi * (1.0 + (lo / hi).powf(self.0)).powf(1.0 / self.0)).min(1.0)
    }
}

/// Chapter 16.4's threshold: two conjuncts above one half give at least θ.
#[derive(Clone, Copy)]
struct Threshold<L> {
    theta: f64,
    inner: L,
}

impl<L: Logic> Logic for Threshold<L> {
    fn and(self, a: f64, b: f64) -> f64 {
        let t = self.inner.and(a, b);
        if a > 0.5 && b > 0.5 {
            t.max(self.theta)
        } else {
            t
        }
    }
    fn or(self, a: f64, b: f64) -> f64 {
        self.inner.or(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates `T(a, b)` and `S(a, b)` under some parameters.
    struct Pair(f64, f64);

    impl WithLogic for Pair {
        type Output = (f64, f64);
        fn run<L: Logic>(self, logic: L) -> (f64, f64) {
            (logic.and(self.0, self.1), logic.or(self.0, self.1))
        }
    }

    fn pair(norm: Norm, theta: Option<f64>, a: f64, b: f64) -> (f64, f64) {
        Params { tau: 0.9, theta, norm }.dispatch(Pair(a, b))
    }

    #[test]
    fn the_chapter_connectives() {
        let (and, or) = pair(Norm::Product, None, 0.9, 0.1);
        assert!((and - 0.09).abs() < 1e-15 && (or - 0.91).abs() < 1e-15);
        // 0.9 · 0.9 · 0.9 · 0.9 = 0.6561 > θ = 0.6, but one more factor falls below it.
        assert_eq!(pair(Norm::Product, Some(0.6), 0.6561, 0.9).0, 0.6);
        assert!((pair(Norm::Product, Some(0.6), 0.4, 0.9).0 - 0.36).abs() < 1e-15);
    }

    #[test]
    fn yager_limits_and_special_cases_agree_with_the_formula() {
        for (a, b) in [(0.3, 0.6), (0.0, 0.7), (0.95, 0.9), (1.0, 0.2)] {
            // q near 1 and near infinity approach Łukasiewicz and min/max.
            let (l_and, l_or) = pair(Norm::Yager(1.0), None, a, b);
            let (near_and, near_or) = pair(Norm::Yager(1.0 + 1e-9), None, a, b);
            assert!((l_and - near_and).abs() < 1e-6 && (l_or - near_or).abs() < 1e-6, "{a} {b}");
            assert_eq!(pair(Norm::Yager(f64::INFINITY), None, a, b), (f64::min(a, b), f64::max(a, b)));
            let (big_and, big_or) = pair(Norm::Yager(1e4), None, a, b);
            assert!((big_and - a.min(b)).abs() < 1e-3 && (big_or - a.max(b)).abs() < 1e-3, "{a} {b}");
            // q near 0 approaches the drastic t-norm away from the boundary.
            let (d_and, d_or) = pair(Norm::Yager(0.0), None, a, b);
            let (small_and, small_or) = pair(Norm::Yager(1e-3), None, a, b);
            assert!((d_and - small_and).abs() < 1e-6 && (d_or - small_or).abs() < 1e-6, "{a} {b}");
        }
        assert_eq!(pair(Norm::Yager(2.0), None, 0.6, 0.8).1, 1.0);
        assert!((pair(Norm::Yager(2.0), None, 0.3, 0.4).1 - 0.5).abs() < 1e-15);
    }

    #[test]
    fn parameters_are_checked() {
        let ok = Params::default();
        assert_eq!(ok.validate(), Ok(()));
        assert_eq!(Params { tau: 1.0, ..ok }.validate(), Err(ParamError::Tau(1.0)));
        assert_eq!(Params { tau: 0.5, ..ok }.validate(), Err(ParamError::Tau(0.5)));
        assert!(Params { tau: f64::NAN, ..ok }.validate().is_err());
        assert_eq!(Params { theta: Some(0.9), ..ok }.validate(), Ok(()));
        assert_eq!(Params { theta: Some(0.95), ..ok }.validate(), Err(ParamError::Theta { theta: 0.95, tau: 0.9 }));
        assert!(Params { theta: Some(0.5), ..ok }.validate().is_err());
        assert_eq!(Params { norm: Norm::Yager(f64::INFINITY), ..ok }.validate(), Ok(()));
        assert_eq!(Params { norm: Norm::Yager(0.0), ..ok }.validate(), Ok(()));
        assert_eq!(Params { norm: Norm::Yager(-1.0), ..ok }.validate(), Err(ParamError::YagerQ(-1.0)));
        assert!(Params { norm: Norm::Yager(f64::NAN), ..ok }.validate().is_err());
    }
}
