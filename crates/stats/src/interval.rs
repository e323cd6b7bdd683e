//! Student's t interval of a mean.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The mean of `xs` and, from two values on, the half-width of its two-sided interval at
/// `level` (0.95 for 95%) from Student's t with n − 1 degrees of freedom.
pub fn mean_interval(xs: &[f64], level: f64) -> Option<(f64, Option<f64>)> {
    let n = xs.len();
    if n == 0 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Some((mean, None));
    }
    let variance = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64).ok()?.inverse_cdf(0.5 + level / 2.0);
    Some((mean, Some(t * (variance / n as f64).sqrt())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_half_width_is_students() {
        // 40, 60, 50 and 50: mean 50, sample variance 200 / 3; t(3) at 97.5% is 3.182 (tables).
        let (mean, half) = mean_interval(&[40.0, 60.0, 50.0, 50.0], 0.95).unwrap();
        assert_eq!(mean, 50.0);
        assert!((half.unwrap() - 3.182446 * (200.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-4);
        // 30 degrees of freedom: 2.042 in the tables.
        let xs: Vec<f64> = (0..31).map(|i| f64::from(i % 2)).collect();
        let (_, half) = mean_interval(&xs, 0.95).unwrap();
        let sd = (xs.iter().map(|x| (x - 15.0 / 31.0).powi(2)).sum::<f64>() / 30.0).sqrt();
        assert!((half.unwrap() / (sd / 31f64.sqrt()) - 2.042).abs() < 1e-3);
        assert_eq!(mean_interval(&[70.0], 0.95), Some((70.0, None)));
        assert_eq!(mean_interval(&[], 0.95), None);
    }
}
