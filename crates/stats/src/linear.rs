//! Small dense linear systems: least squares' normal equations and Newton's steps.

/// Solves the square system whose augmented rows are `a` by Gaussian elimination with partial
/// pivoting; `None` if it is singular.
pub fn solve(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = a.len();
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        let pivot = a[c].clone();
        for (_, row) in a.iter_mut().enumerate().filter(|(r, _)| *r != c) {
            let f = row[c] / pivot[c];
            for (cell, &p) in row.iter_mut().zip(&pivot).skip(c) {
                *cell -= f * p;
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

/// The inverse of a symmetric positive-definite matrix by Gauss–Jordan elimination, or `None`
/// if it is singular.
pub fn invert(mut m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut inv: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for c in 0..n {
        let pivot = (c..n).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[pivot][c].abs() < 1e-12 {
            return None;
        }
        m.swap(c, pivot);
        inv.swap(c, pivot);
        let p = m[c][c];
        for k in 0..n {
            m[c][k] /= p;
            inv[c][k] /= p;
        }
        for r in 0..n {
            if r != c && m[r][c] != 0.0 {
                let f = m[r][c];
                for k in 0..n {
                    m[r][k] -= f * m[c][k];
                    inv[r][k] -= f * inv[c][k];
                }
            }
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_system_is_solved() {
        let x = solve(vec![vec![2.0, 1.0, 5.0], vec![1.0, 3.0, 10.0]]).expect("regular");
        assert!((x[0] - 1.0).abs() < 1e-9 && (x[1] - 3.0).abs() < 1e-9, "{x:?}");
        assert!(solve(vec![vec![1.0, 1.0, 1.0], vec![2.0, 2.0, 2.0]]).is_none());
    }

    #[test]
    fn an_inverse_times_its_matrix_is_the_identity() {
        let m = vec![vec![4.0, 1.0], vec![1.0, 3.0]];
        let inv = invert(m.clone()).expect("regular");
        for (i, row) in m.iter().enumerate() {
            for j in 0..2 {
                let v: f64 = row.iter().zip(&inv).map(|(x, r)| x * r[j]).sum();
                assert!((v - f64::from(u8::from(i == j))).abs() < 1e-12, "{i} {j}: {v}");
            }
        }
        assert!(invert(vec![vec![1.0, 2.0], vec![2.0, 4.0]]).is_none());
    }
}
