//! Pinning players to cores, as `taskset` does: a list of cores split into one group per seat of
//! every concurrent match, so that each player of a match runs on cores of its own.

use crate::TournamentError;

/// Reads a core list: numbers and ranges joined by commas (`0-3,6`).
pub fn parse(text: &str) -> Result<Vec<usize>, TournamentError> {
    let bad = || TournamentError::Cpus(format!("{text:?} is not a list of cores such as 0-3,6"));
    let mut cpus = Vec::new();
    for part in text.split(',').map(str::trim) {
        let (lo, hi): (usize, usize) = match part.split_once('-') {
            Some((lo, hi)) => (lo.trim().parse().map_err(|_| bad())?, hi.trim().parse().map_err(|_| bad())?),
            None => {
                let n = part.parse().map_err(|_| bad())?;
                (n, n)
            }
        };
        if lo > hi || hi >= 1024 {
            return Err(bad());
        }
        cpus.extend(lo..=hi);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Splits `cpus` into `groups` groups of equal size (the last cores left over unused), in order:
/// group `slot × seats + seat` serves seat `seat` of the `slot`-th concurrent match.
pub fn split(cpus: &[usize], groups: usize) -> Result<Vec<Vec<usize>>, TournamentError> {
    let size = cpus.len() / groups.max(1);
    if size == 0 {
        return Err(TournamentError::Cpus(format!(
            "{} cores cannot give each of {groups} players (concurrent matches × seats) a core of its own",
            cpus.len()
        )));
    }
    Ok(cpus.chunks(size).take(groups).map(<[usize]>::to_vec).collect())
}

/// Confines the calling thread, and the threads and processes it starts from now on, to `cpus`.
#[cfg(target_os = "linux")]
pub fn pin_current_thread(cpus: &[usize]) -> std::io::Result<()> {
    pin(0, cpus)
}

/// Confines the process (or thread) `pid` (0: the calling thread) to `cpus`.
#[cfg(target_os = "linux")]
pub fn pin(pid: libc::pid_t, cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data, zeroed is the empty set, CPU_SET writes inside it for
    // core numbers below CPU_SETSIZE (parse keeps them under 1024), and sched_setaffinity reads
    // the set of the size given.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Pinning needs Linux's sched_setaffinity.
#[cfg(not(target_os = "linux"))]
pub fn pin_current_thread(_cpus: &[usize]) -> std::io::Result<()> {
    Err(std::io::Error::other("pinning players to cores is supported on Linux only"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_groups() {
        assert_eq!(parse("0-3,6").unwrap(), [0, 1, 2, 3, 6]);
        assert_eq!(parse("1, 0,1").unwrap(), [0, 1]);
        for bad in ["", "a", "3-1", "0-", "5000"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(split(&[0, 1, 2, 3, 4], 2).unwrap(), [vec![0, 1], vec![2, 3]]);
        assert!(split(&[0, 1], 4).unwrap_err().to_string().contains("2 cores"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_sees_its_cores() {
        let first = std::thread::spawn(|| {
            pin_current_thread(&[0]).unwrap();
            // Threads started by a pinned thread inherit its cores.
            std::thread::spawn(|| std::thread::available_parallelism().unwrap().get()).join().unwrap()
        });
        assert_eq!(first.join().unwrap(), 1);
    }
}
