//! `now()`: the writer's clock in microseconds since the Unix epoch, or `RQC_NOW` when set (tests, README blocks).
//!
//! A session reads it once, on the first `now()` of its transaction
//! attempt, and answers every later `now()` of the attempt with the same
//! value (`Session::now`): one transaction, one time.

use crate::error::{Result, RuntimeError};

/// The variable that fixes the clock, in microseconds since the epoch.
pub const FIXED_CLOCK: &str = "RQC_NOW";

/// The time now, in microseconds since the Unix epoch: `RQC_NOW` when
/// set (E0663 when it is not an `Int`), else the system clock (E0664 when
/// it is before the epoch or past the largest `Int`).
pub fn now_micros() -> Result<i64> {
    if let Some(fixed) = std::env::var_os(FIXED_CLOCK) {
        let text = fixed.to_string_lossy();
        return text.trim().parse::<i64>().map_err(|_| {
            RuntimeError::new(
                "E0663",
                format!("`{FIXED_CLOCK}` is `{text}`, which is not a time in microseconds"),
                format!(
                    "set it to an integer, microseconds since the Unix epoch (`{FIXED_CLOCK}=1700000000000000`), or unset it to read the system clock"
                ),
            )
        });
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_micros()).ok());
    since.ok_or_else(|| {
        RuntimeError::new(
            "E0664",
            "the system clock is before the Unix epoch or past the largest `Int` of microseconds",
            format!("set the machine's clock, or fix the time with `{FIXED_CLOCK}`"),
        )
    })
}
