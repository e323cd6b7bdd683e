//! External players the tournament starts itself (`cmd:` specs): a command line run by `sh -c`
//! on a free port, pinned to its cores, waited for with `INFO`, its output kept in a log file,
//! and its whole process group stopped when the tournament is done with it.

use crate::TournamentError;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An external player started by the tournament.
pub struct Started {
    /// Where it listens: `http://127.0.0.1:PORT`.
    pub url: String,
    /// Its log file.
    pub log: PathBuf,
    child: Child,
}

/// How long a started player may take to answer `INFO`: the JVM players build themselves first.
pub const READY: Duration = Duration::from_secs(300);

impl Started {
    /// Runs `template` with `{port}` replaced by a free port, its output appended to a log in
    /// `logs` named after `name` and the port, on `cpus` if given, and waits until it answers
    /// `INFO` (at most `ready`).
    pub fn start(
        template: &str,
        name: &str,
        cpus: Option<&[usize]>,
        logs: &Path,
        ready: Duration,
    ) -> Result<Started, TournamentError> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| TournamentError::Io { what: "find a free port".into(), source: e })?
            .port();
        let line = template.replace("{port}", &port.to_string());
        std::fs::create_dir_all(logs)
            .map_err(|e| TournamentError::Io { what: format!("create {}", logs.display()), source: e })?;
        let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        let log = logs.join(format!("{safe}-{port}.log"));
        let out = File::options()
            .create(true)
            .append(true)
            .open(&log)
            .map_err(|e| TournamentError::Io { what: format!("open {}", log.display()), source: e })?;
        let err = out.try_clone().map_err(|e| TournamentError::Io { what: "copy a log handle".into(), source: e })?;
        let mut command = Command::new("sh");
        command.arg("-c").arg(&line).stdin(Stdio::null()).stdout(out).stderr(err);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // A group of its own, so that stopping it stops whatever the command started.
            command.process_group(0);
            #[cfg(target_os = "linux")]
            if let Some(cpus) = cpus {
                let cpus = cpus.to_vec();
                // SAFETY: between fork and exec the closure only makes the sched_setaffinity
                // system call on a set built on the stack: no allocation, no lock.
                unsafe {
                    command.pre_exec(move || crate::cpus::pin(0, &cpus));
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        if cpus.is_some() {
            return Err(TournamentError::Cpus("pinning players to cores is supported on Linux only".into()));
        }
        let child = command.spawn().map_err(|e| TournamentError::Io { what: format!("run {line:?}"), source: e })?;
        let mut started = Started { url: format!("http://127.0.0.1:{port}"), log, child };
        started.wait_ready(&line, ready)?;
        Ok(started)
    }

    /// Asks for `INFO` until the player answers, it exits, or `ready` passes.
    fn wait_ready(&mut self, line: &str, ready: Duration) -> Result<(), TournamentError> {
        let remote = player::Remote::new(&self.url);
        let deadline = Instant::now() + ready;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(TournamentError::Started {
                    command: line.to_owned(),
                    why: format!("it exited ({status}) before answering INFO"),
                    log: self.log.clone(),
                });
            }
            if remote.info(Duration::from_millis(500)).is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(TournamentError::Started {
                    command: line.to_owned(),
                    why: format!("it did not answer INFO within {} s", ready.as_secs()),
                    log: self.log.clone(),
                });
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Started {
    /// Stops the player's process group: TERM, then KILL after two seconds.
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            let group = -(self.child.id() as libc::pid_t);
            // SAFETY: kill only sends a signal to the group the child leads.
            unsafe { libc::kill(group, libc::SIGTERM) };
            let until = Instant::now() + Duration::from_secs(2);
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    // The leader is gone; make sure nothing it started is left.
                    unsafe { libc::kill(group, libc::SIGKILL) };
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: as above.
            unsafe { libc::kill(group, libc::SIGKILL) };
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
