//! The cut of one call's pairs into device tasks (one thread's Miller loop
//! each) and groups (one product each): the offsets of `cuzk_pairing.h`.

use crate::PairingError;

/// Task and group offsets for a call: groups of `group_lens[g]` pairs,
/// stored one after another, cut into tasks of at most `chunk` pairs that
/// never straddle two groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// `tasks + 1` rising pair offsets from 0.
    pub task_starts: Vec<u32>,
    /// `groups + 1` rising task offsets from 0 to `tasks`.
    pub group_starts: Vec<u32>,
    /// The most tasks in one group (the product tree's width).
    pub max_group_tasks: u32,
}

impl Plan {
    pub fn new(group_lens: &[usize], chunk: usize) -> Result<Plan, PairingError> {
        let pairs: usize = group_lens.iter().sum();
        let chunk = chunk.max(1);
        // The C side counts pairs, tasks and groups in 32 bits.
        if u32::try_from(pairs).is_err() || u32::try_from(group_lens.len()).is_err() {
            return Err(PairingError::TooMany(pairs));
        }
        let mut task_starts = vec![0u32];
        let mut group_starts = vec![0u32];
        let (mut at, mut max_group_tasks) = (0usize, 0u32);
        for &len in group_lens {
            let tasks = len.div_ceil(chunk);
            for k in 0..tasks {
                at += chunk.min(len - k * chunk);
                task_starts.push(at as u32);
            }
            group_starts.push((task_starts.len() - 1) as u32);
            max_group_tasks = max_group_tasks.max(tasks as u32);
        }
        Ok(Plan {
            task_starts,
            group_starts,
            max_group_tasks,
        })
    }

    pub fn pairs(&self) -> usize {
        self.task_starts[self.task_starts.len() - 1] as usize
    }

    pub fn tasks(&self) -> usize {
        self.task_starts.len() - 1
    }

    pub fn groups(&self) -> usize {
        self.group_starts.len() - 1
    }
}

/// Pairs per task on a device that keeps `resident` Miller-loop threads
/// running at once: one each while they fit (the latency of a call is one
/// Miller loop), else as few tasks as keep every thread busy, so the tree
/// products stay short.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn chunk_for(pairs: usize, resident: usize) -> usize {
    pairs.div_ceil(resident.max(1)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_never_straddle_groups_and_cover_every_pair() {
        let p = Plan::new(&[5, 0, 3, 8], 3).unwrap();
        assert_eq!(p.task_starts, vec![0, 3, 5, 8, 11, 14, 16]);
        assert_eq!(p.group_starts, vec![0, 2, 2, 3, 6]);
        assert_eq!(p.max_group_tasks, 3);
        assert_eq!((p.pairs(), p.tasks(), p.groups()), (16, 6, 4));
    }

    #[test]
    fn empty_calls_have_no_tasks() {
        let p = Plan::new(&[], 4).unwrap();
        assert_eq!((p.pairs(), p.tasks(), p.groups()), (0, 0, 0));
        let p = Plan::new(&[0, 0], 0).unwrap();
        assert_eq!(p.group_starts, vec![0, 0, 0]);
        assert_eq!(p.max_group_tasks, 0);
    }

    #[test]
    fn chunks_fill_the_device_once_it_is_full() {
        assert_eq!(chunk_for(10, 100), 1);
        assert_eq!(chunk_for(100, 100), 1);
        assert_eq!(chunk_for(101, 100), 2);
        assert_eq!(chunk_for(0, 0), 1);
    }
}
