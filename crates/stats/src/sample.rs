//! Samples: their moments and correlations, and the thresholds at which a correlation counts as
//! evidence, as the analysis and the learning judge what random games show.

/// The least correlation that counts as evidence, however many pairs: below it a variable
/// explains under 1% of the other's variance, too little to steer a search by.
pub const MIN_CORRELATION: f64 = 0.1;

/// The least correlation over `n` pairs that counts as evidence: three standard errors of a zero
/// correlation (1/√n each), and never under [`MIN_CORRELATION`].
pub fn correlation_threshold(n: usize) -> f64 {
    (3.0 / (n as f64).sqrt()).max(MIN_CORRELATION)
}

/// The least correlation over `n` held-out pairs that confirms one already chosen elsewhere
/// at [`correlation_threshold`]: two standard errors of a zero correlation. A single test of a
/// named hypothesis needs no floor, and with one the confirmation would fail about half the
/// time for a true correlation near [`MIN_CORRELATION`] (Breakthrough's white pawns, 0.14).
pub fn confirmation_threshold(n: usize) -> f64 {
    2.0 / (n.max(1) as f64).sqrt()
}

/// Pearson's correlation of `xs` and `ys` (0 where either does not vary).
pub fn correlation(xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx < 1e-12 || syy < 1e-12 {
        return 0.0;
    }
    sxy / (sxx * syy).sqrt()
}

/// Mean and standard deviation of `xs`.
pub fn moments(xs: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = xs.clone().count().max(1) as f64;
    let mean = xs.clone().sum::<f64>() / n;
    let var = xs.map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The even and the odd items of `items`: one half to choose on, the other to check.
pub fn halves<T>(items: &[T]) -> (Vec<&T>, Vec<&T>) {
    (items.iter().step_by(2).collect(), items.iter().skip(1).step_by(2).collect())
}
