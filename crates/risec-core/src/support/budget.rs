//! One time and memory budget for a whole run.
//!
//! `risec PROGRAM.rise --sketch FILE.sk --time 20s` promises an answer within 20 s, whatever
//! part of the work is slow: reading and expanding the sketch file, the guide steps with their
//! sketch checks and extraction, lowering, or C generation. A [`Budget`] is that promise: a
//! deadline fixed when the run starts and a limit on the process's resident memory. Every
//! stage takes the same budget; the searches cap their own limits by what is left of it
//! ([`Budget::remaining`]), and the passes that walk a program [`poll`](Budget::poll) it, which
//! reads the clock every few calls and the memory more rarely, so that polling costs nothing
//! measurable.

use std::cell::Cell;
use std::fmt;
use std::time::{Duration, Instant};

/// Polls between two readings of the clock.
const POLLS_PER_CLOCK: u32 = 64;

/// Clock readings between two readings of the resident memory.
const CLOCKS_PER_MEMORY: u32 = 64;

/// The part of a run that was under way when its budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading the sketch file and expanding its definitions.
    LoadingSketch,
    /// The guide steps' searches, with their sketch checks and extraction.
    Searching,
    /// Lowering the found program to low-level Rise.
    Lowering,
    /// Generating C.
    GeneratingC,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::LoadingSketch => "loading the sketch file",
            Stage::Searching => "searching",
            Stage::Lowering => "lowering the program to low-level Rise",
            Stage::GeneratingC => "generating C",
        })
    }
}

/// A run's budget ran out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Exhausted {
    /// The deadline passed.
    #[error("the time budget of {} ran out while {stage} (raise it with `--time`)", crate::support::units::format_duration_limit(*.limit))]
    Time {
        /// The run's whole time budget.
        limit: Duration,
        /// What was under way.
        stage: Stage,
    },
    /// The process's resident memory reached the limit.
    #[error("the memory budget of {} ran out while {stage} ({} resident; raise it with `--memory`)", crate::support::units::format_bytes(*.limit), crate::support::units::format_bytes(*.used))]
    Memory {
        /// The limit on resident memory, in bytes.
        limit: u64,
        /// The resident memory when it was read, in bytes.
        used: u64,
        /// What was under way.
        stage: Stage,
    },
}

/// A deadline and a memory limit shared by every stage of one run.
#[derive(Clone, Debug)]
pub struct Budget {
    started: Instant,
    time: Duration,
    memory: u64,
    /// Polls since the clock was last read.
    polls: Cell<u32>,
    /// Clock readings since the memory was last read.
    clocks: Cell<u32>,
}

impl Budget {
    /// A budget of `time` from now and `memory` bytes of resident memory.
    pub fn new(time: Duration, memory: u64) -> Budget {
        Budget {
            started: Instant::now(),
            time,
            memory,
            polls: Cell::new(0),
            clocks: Cell::new(0),
        }
    }

    /// No deadline, and the memory the process may allocate
    /// (4 GiB, or less where the process may not allocate that much).
    pub fn unlimited() -> Budget {
        Budget::new(Duration::MAX, crate::support::memory::default_limit())
    }

    /// The whole time budget.
    pub fn time(&self) -> Duration {
        self.time
    }

    /// The limit on resident memory, in bytes.
    pub fn memory(&self) -> u64 {
        self.memory
    }

    /// Time since the run started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Time left before the deadline (zero once it has passed).
    pub fn remaining(&self) -> Duration {
        self.time.saturating_sub(self.started.elapsed())
    }

    /// Checks the clock and the resident memory now.
    pub fn check(&self, stage: Stage) -> Result<(), Exhausted> {
        self.check_time(stage)?;
        self.check_memory(stage)
    }

    /// [`check`](Budget::check), cheaply enough to call at every node of a program: reads the
    /// clock once every 64 calls and the memory once every 4,096.
    #[inline]
    pub fn poll(&self, stage: Stage) -> Result<(), Exhausted> {
        let polls = self.polls.get() + 1;
        if polls < POLLS_PER_CLOCK {
            self.polls.set(polls);
            return Ok(());
        }
        self.polls.set(0);
        self.check_time(stage)?;
        let clocks = self.clocks.get() + 1;
        if clocks < CLOCKS_PER_MEMORY {
            self.clocks.set(clocks);
            return Ok(());
        }
        self.clocks.set(0);
        self.check_memory(stage)
    }

    fn check_time(&self, stage: Stage) -> Result<(), Exhausted> {
        if self.started.elapsed() >= self.time {
            return Err(Exhausted::Time {
                limit: self.time,
                stage,
            });
        }
        Ok(())
    }

    fn check_memory(&self, stage: Stage) -> Result<(), Exhausted> {
        match crate::support::memory::would_exceed(self.memory, 0) {
            Some(used) => Err(Exhausted::Memory {
                limit: self.memory,
                used,
                stage,
            }),
            None => Ok(()),
        }
    }
}

impl Default for Budget {
    /// [`Budget::unlimited`].
    fn default() -> Budget {
        Budget::unlimited()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_budget_is_reported_with_its_stage() {
        let b = Budget::new(Duration::ZERO, u64::MAX);
        let e = b.check(Stage::Lowering).unwrap_err();
        assert_eq!(
            e,
            Exhausted::Time {
                limit: Duration::ZERO,
                stage: Stage::Lowering
            }
        );
        assert!(e.to_string().contains("while lowering"), "{e}");
    }

    #[test]
    fn polling_reads_the_clock_within_64_calls() {
        let b = Budget::new(Duration::ZERO, u64::MAX);
        let failed = (0..64).position(|_| b.poll(Stage::GeneratingC).is_err());
        assert!(failed.is_some());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn memory_over_the_limit_is_reported() {
        let b = Budget::new(Duration::MAX, 1);
        assert!(matches!(
            b.check(Stage::Searching),
            Err(Exhausted::Memory { limit: 1, .. })
        ));
    }

    #[test]
    fn an_unlimited_budget_has_time_left() {
        let b = Budget::unlimited();
        assert!(b.remaining() > Duration::from_secs(1 << 40));
        assert!(b.check(Stage::Searching).is_ok());
    }
}
