//! Curio's cuzk configuration file read by this engine: every key of
//! Curio's `extern/cuzk/cuzk.example.toml` either maps onto ours (renamed
//! here, before the strict parse) or is accepted with a [`ConfigNotice`]
//! saying it has no effect here and why. Keys that are neither ours nor
//! Curio's stay errors: the strict parse after this refuses them.
//!
//! The `[daemon]` keys (`listen = "unix://…"`, `status_listen`) are the
//! daemon's: `cuzk_daemon::settings` maps them. docs/DAEMON.md has the
//! key-by-key table.

use serde::Serialize;

/// A key the file set that has no effect here, or means something other
/// than in Curio: logged once when the file is read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConfigNotice {
    /// `section.key`.
    pub key: String,
    /// What happens to it here.
    pub message: String,
}

/// Curio's keys with no effect here, and why.
const NO_EFFECT: [(&str, &str, &str); 12] = [
    (
        "memory",
        "eviction_min_idle",
        "idle parameter sets stay loaded until the memory budget needs their room",
    ),
    (
        "memory",
        "pinned_budget",
        "one host budget: [memory] budget",
    ),
    (
        "memory",
        "working_memory_budget",
        "one host budget: [memory] budget",
    ),
    (
        "gpus",
        "gpu_threads",
        "the GPU workers' CPU work runs on the one pool of [synthesis] threads",
    ),
    (
        "scheduler",
        "max_batch_size",
        "partitions of different proofs are pipelined instead of batched, with no batch wait",
    ),
    (
        "scheduler",
        "max_batch_wait_ms",
        "partitions of different proofs are pipelined instead of batched, with no batch wait",
    ),
    (
        "scheduler",
        "sort_by_type",
        "jobs start by priority and age ([scheduler] aging)",
    ),
    (
        "pipeline",
        "enabled",
        "synthesis and proving always overlap",
    ),
    (
        "pipeline",
        "synthesis_lookahead",
        "partitions in flight follow [synthesis] concurrency and the memory budget",
    ),
    (
        "pipeline",
        "synthesis_concurrency",
        "partitions in flight follow [synthesis] concurrency and the memory budget",
    ),
    (
        "pipeline",
        "slot_size",
        "partitions in flight follow [synthesis] concurrency and the memory budget",
    ),
    (
        "pipeline",
        "max_gpu_queue_depth",
        "partitions in flight follow [synthesis] concurrency and the memory budget",
    ),
];

/// Curio's names of our keys: (section, Curio's key, ours).
const RENAMED: [(&str, &str, &str); 2] = [
    ("memory", "total_budget", "budget"),
    ("memory", "safety_margin", "margin"),
];

/// Keys both files have whose meaning differs: (section, key, here).
const DIFFERENT: [(&str, &str, &str); 2] = [
    (
        "srs",
        "preload",
        "the listed circuits are loaded at start (Curio ignores the key)",
    ),
    (
        "synthesis",
        "partition_workers",
        "at most this many partitions of one job are in synthesis at once (Curio ignores the key)",
    ),
];

/// Rewrites Curio's keys in `table` into ours and removes those with no
/// effect here (and `[pipeline]` once empty); returns a notice for each
/// key removed or whose meaning differs. A key given under both names is
/// an error naming both.
pub(crate) fn translate(table: &mut toml::Table) -> Result<Vec<ConfigNotice>, String> {
    let mut notices = Vec::new();
    let note = |section: &str, key: &str, message: String| ConfigNotice {
        key: format!("{section}.{key}"),
        message,
    };
    for (section, theirs, ours) in RENAMED {
        let Some(t) = table.get_mut(section).and_then(|t| t.as_table_mut()) else {
            continue;
        };
        if let Some(v) = t.remove(theirs) {
            if t.contains_key(ours) {
                return Err(format!(
                    "[{section}] sets both `{theirs}` (Curio's name) and `{ours}`: keep one"
                ));
            }
            t.insert(ours.to_string(), v);
        }
    }
    for (section, key, why) in NO_EFFECT {
        let Some(t) = table.get_mut(section).and_then(|t| t.as_table_mut()) else {
            continue;
        };
        if t.remove(key).is_some() {
            notices.push(note(section, key, format!("no effect here: {why}")));
        }
    }
    // `[pipeline]` is Curio's alone: once its keys are gone, anything left
    // is a typo, named here (the strict parse would name only the table).
    if let Some(p) = table.get("pipeline") {
        let left: Vec<&String> = p.as_table().map(|t| t.keys().collect()).unwrap_or_default();
        if !p.is_table() || !left.is_empty() {
            let known: Vec<&str> = NO_EFFECT
                .iter()
                .filter(|(s, _, _)| *s == "pipeline")
                .map(|(_, k, _)| *k)
                .collect();
            return Err(format!(
                "unknown key(s) {left:?} in [pipeline] (Curio's keys there: {})",
                known.join(", ")
            ));
        }
        table.remove("pipeline");
    }
    for (section, key, here) in DIFFERENT {
        let set = table
            .get(section)
            .and_then(|t| t.as_table())
            .and_then(|t| t.get(key));
        // An empty list is Curio's and our default alike.
        let empty_list = set.and_then(|v| v.as_array()).is_some_and(|a| a.is_empty());
        if set.is_some() && !empty_list {
            notices.push(note(section, key, here.to_string()));
        }
    }
    Ok(notices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: &str) -> toml::Table {
        s.parse().unwrap()
    }

    #[test]
    fn curio_names_map_onto_ours() {
        let mut t = table("[memory]\ntotal_budget = \"64GiB\"\nsafety_margin = \"5GiB\"\n");
        assert!(translate(&mut t).unwrap().is_empty());
        assert_eq!(
            t,
            table("[memory]\nbudget = \"64GiB\"\nmargin = \"5GiB\"\n")
        );
        let mut both = table("[memory]\ntotal_budget = \"1GiB\"\nbudget = \"2GiB\"\n");
        let e = translate(&mut both).unwrap_err();
        assert!(e.contains("total_budget") && e.contains("budget"), "{e}");
    }

    #[test]
    fn keys_with_no_effect_are_removed_with_a_notice() {
        let mut t = table(
            "[scheduler]\nmax_batch_size = 2\naging = 3\n[pipeline]\nenabled = true\nslot_size = 3\n[gpus]\ngpu_threads = 32\n",
        );
        let n = translate(&mut t).unwrap();
        let keys: Vec<&str> = n.iter().map(|n| n.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "gpus.gpu_threads",
                "scheduler.max_batch_size",
                "pipeline.enabled",
                "pipeline.slot_size"
            ]
        );
        assert!(n.iter().all(|n| n.message.starts_with("no effect here")));
        // Ours stay; an emptied [pipeline] goes.
        assert_eq!(t, table("[scheduler]\naging = 3\n[gpus]\n"));
        // A typo in Curio's own table is named; elsewhere the strict parse
        // refuses unknown keys.
        let mut u = table("[pipeline]\nenabeld = true\n");
        let e = translate(&mut u).unwrap_err();
        assert!(
            e.contains("enabeld") && e.contains("synthesis_lookahead"),
            "{e}"
        );
        let mut v = table("[scheduler]\nagign = 3\n");
        assert!(translate(&mut v).unwrap().is_empty());
        assert!(v["scheduler"].as_table().unwrap().contains_key("agign"));
    }

    #[test]
    fn keys_meaning_something_else_here_are_noted_and_kept() {
        let mut t = table("[srs]\npreload = [\"bench-k16\"]\n[synthesis]\npartition_workers = 4\n");
        let n = translate(&mut t).unwrap();
        assert_eq!(n.len(), 2, "{n:?}");
        assert_eq!(n[0].key, "srs.preload");
        assert_eq!(n[1].key, "synthesis.partition_workers");
        assert!(t["synthesis"]
            .as_table()
            .unwrap()
            .contains_key("partition_workers"));
        let mut empty = table("[srs]\npreload = []\n");
        assert!(translate(&mut empty).unwrap().is_empty());
    }
}
