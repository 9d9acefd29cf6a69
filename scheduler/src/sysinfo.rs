//! What the engine reads about the machine, from `/proc` (Linux). Every
//! function returns `None` where the file is missing or unreadable, so the
//! engine still runs elsewhere (with an explicit memory budget).

use std::time::Duration;

/// Total and available RAM in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    /// `MemTotal`.
    pub total: u64,
    /// `MemAvailable`: what can be allocated without swapping.
    pub available: u64,
}

/// Reads `/proc/meminfo`.
pub fn meminfo() -> Option<MemInfo> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    Some(MemInfo {
        total: kb_field(&text, "MemTotal:")?,
        available: kb_field(&text, "MemAvailable:")?,
    })
}

/// Peak resident set size of this process (`VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    kb_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmHWM:",
    )
}

/// Current resident set size (`VmRSS`), in bytes.
pub fn current_rss() -> Option<u64> {
    kb_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmRSS:",
    )
}

/// CPU time (user + system) this process used so far, all threads.
/// `/proc/self/stat` counts in clock ticks; Linux fixes USER_HZ at 100 for
/// every architecture we build for, so no `sysconf` (and no `unsafe`) is
/// needed.
pub fn process_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat_cpu(&text)
}

fn parse_stat_cpu(text: &str) -> Option<Duration> {
    // The command name (field 2) is in parentheses and may contain spaces;
    // fields are counted after the last ')'. utime and stime are fields 14
    // and 15, i.e. the 12th and 13th after the ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn kb_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields() {
        let t = "MemTotal:       16384 kB\nMemFree:  1 kB\nMemAvailable:    8192 kB\n";
        assert_eq!(kb_field(t, "MemTotal:"), Some(16384 * 1024));
        assert_eq!(kb_field(t, "MemAvailable:"), Some(8192 * 1024));
        assert_eq!(kb_field(t, "VmHWM:"), None);
        let stat = "1234 (my (odd) name) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20";
        assert_eq!(parse_stat_cpu(stat), Some(Duration::from_millis(3000)));
        assert_eq!(parse_stat_cpu("garbage"), None);
    }

    #[test]
    fn reads_this_process() {
        if cfg!(target_os = "linux") {
            let m = meminfo().expect("meminfo on linux");
            assert!(m.total >= m.available && m.total > 0);
            assert!(peak_rss().unwrap() > 0 && current_rss().unwrap() > 0);
            // Both from one read: RSS may grow between two reads.
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            assert!(kb_field(&status, "VmHWM:").unwrap() >= kb_field(&status, "VmRSS:").unwrap());
            assert!(process_cpu_time().is_some());
        }
    }
}
