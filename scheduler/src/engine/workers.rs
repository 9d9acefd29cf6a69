//! The engine's workers and bookkeeping: submission and admission, the
//! synthesis workers, the GPU workers (one `prove_assignment` per
//! partition), completion in partition order, failures, cancellation and
//! live counters.

use super::*;

impl Inner {
    pub(super) fn submit(
        self: &Arc<Self>,
        spec: JobSpec,
        block: bool,
    ) -> Result<JobHandle, EngineError> {
        let circuit = self
            .circuits
            .read()
            .get(&spec.circuit_id)
            .cloned()
            .ok_or(EngineError::UnknownCircuit(spec.circuit_id.clone()))?;
        let n = spec.source.num_partitions();
        if n == 0 {
            return Err(EngineError::EmptyJob);
        }
        *circuit.last_used.lock() = self.secs(Instant::now());
        let (domain, inputs) = (circuit.params().domain_size(), circuit.params().vk.ic.len());
        // Parameter sets held in host memory are part of the budget.
        let room = self
            .opts
            .memory_budget
            .saturating_sub(self.state.lock().srs_bytes);
        let mut bytes = Vec::with_capacity(n);
        let mut proving = Vec::with_capacity(n);
        let mut scratch = Vec::with_capacity(n);
        let mut witness_len = Vec::with_capacity(n);
        let record = spec.source.record();
        let abc_on_device = record
            .as_ref()
            .is_some_and(|r| self.backends.iter().all(|b| b.abc_on_device(r)));
        for index in 0..n {
            let shape = spec.source.shape(index).map_err(|e| EngineError::Shape {
                index,
                source: Arc::from(e),
            })?;
            // Catch a circuit/parameter mismatch before spending synthesis on it.
            if shape.domain_size() != domain || shape.num_inputs != inputs {
                return Err(EngineError::ShapeMismatch {
                    index,
                    circuit: spec.circuit_id.clone(),
                    detail: format!(
                        "the circuit has domain {} with {} inputs, the parameters domain {domain} with {inputs}",
                        shape.domain_size(),
                        shape.num_inputs,
                    ),
                });
            }
            let extra = spec.source.synthesis_scratch_bytes(index);
            let need = estimate_partition_bytes(&shape, abc_on_device).saturating_add(extra);
            if need > room {
                return Err(EngineError::BudgetTooSmall {
                    index,
                    need,
                    budget: room,
                });
            }
            bytes.push(need);
            scratch.push(extra);
            witness_len.push(record.is_some().then_some(shape.num_aux));
            proving.push(if abc_on_device {
                shape.witness_bytes()
            } else {
                shape.proving_bytes()
            } as u64);
        }
        let shared = Arc::new(JobShared::default());
        let mut st = self.state.lock();
        loop {
            if st.shutdown {
                return Err(EngineError::ShutDown);
            }
            if st.jobs.len() < self.opts.queue_capacity {
                break;
            }
            if !block {
                return Err(EngineError::QueueFull(self.opts.queue_capacity));
            }
            self.room_cv.wait(&mut st);
        }
        let id = st.next_id;
        st.next_id += 1;
        let now = self.secs(Instant::now());
        st.jobs.insert(
            id,
            Job {
                priority: spec.priority,
                skipped: 0,
                circuit,
                source: spec.source,
                bytes,
                proving_bytes: proving,
                scratch_bytes: scratch,
                witness_len,
                next: 0,
                in_synth: 0,
                done: (0..n).map(|_| None).collect(),
                randomness: spec.seed.map(|seed| {
                    use rand::SeedableRng;
                    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
                    (0..n)
                        .map(|_| (Fr::random(&mut rng), Fr::random(&mut rng)))
                        .collect()
                }),
                remaining: n,
                self_check: spec.self_check,
                shared: shared.clone(),
                submitted_at: now,
            },
        );
        self.event(
            Event::new(now, EventKind::JobSubmitted)
                .job(id)
                .detail(spec.circuit_id),
        );
        drop(st);
        self.synth_cv.notify_all();
        Ok(JobHandle {
            id: JobId(id),
            shared,
            inner: self.clone(),
        })
    }

    /// Chooses the next partition to synthesize and reserves its memory.
    fn pick(&self, st: &mut State) -> Pick {
        let cap = self.opts.partition_workers;
        let aging = self.opts.aging;
        let eligible = |j: &Job| j.next < j.bytes.len() && j.in_synth < cap;
        let best = st
            .jobs
            .iter()
            .filter(|(_, j)| eligible(j))
            .max_by_key(|(id, j)| (j.effective_priority(aging), Reverse(**id)))
            .map(|(id, j)| (*id, j.bytes[j.next]));
        let Some((id, need)) = best else {
            return Pick::Idle;
        };
        // Strict order: the best candidate waits for memory rather than
        // being overtaken by smaller ones, which would starve big circuits.
        if st.reserved + need > self.opts.memory_budget {
            return Pick::Budget;
        }
        // Idle witness buffers are host memory too: free what would not
        // fit beside this partition, except the buffer its synthesis will
        // reuse, already counted in `need`. Freeing that one too made every
        // partition of a budget-bound steady state page-lock a new 4.2 GB
        // buffer (32 GiB PoRep), ~1.3 s that stalled the other GPU
        // worker's CUDA calls.
        if let Some(a) = &self.witness_alloc {
            let room = self.opts.memory_budget - st.reserved - need;
            if a.idle_bytes() > room {
                let j = &st.jobs[&id];
                a.trim_keeping(room, j.witness_len[j.next]);
            }
        }
        for (oid, o) in st.jobs.iter_mut() {
            if *oid != id && eligible(o) {
                o.skipped += 1;
            }
        }
        let j = st.jobs.get_mut(&id).expect("picked from the map");
        j.skipped = 0;
        let index = j.next;
        j.next += 1;
        j.in_synth += 1;
        let task = SynthTask {
            job: id,
            index,
            bytes: need,
            proving_bytes: j.proving_bytes[index],
            scratch_bytes: j.scratch_bytes[index],
            source: j.source.clone(),
        };
        st.reserve(need);
        st.synth_busy += 1;
        Pick::Go(task)
    }

    fn end_budget_wait(&self, st: &mut State) {
        if let Some(since) = st.budget_blocked_since.take() {
            let d = since.elapsed();
            st.budget_wait += d;
            self.event(Event::new(self.secs(since), EventKind::BudgetWait).dur(d.as_secs_f64()));
        }
    }

    pub(super) fn synth_worker(&self, w: usize) {
        loop {
            let task = {
                let mut st = self.state.lock();
                loop {
                    if st.shutdown {
                        return;
                    }
                    if !st.paused {
                        match self.pick(&mut st) {
                            Pick::Go(t) => {
                                self.end_budget_wait(&mut st);
                                break t;
                            }
                            Pick::Budget => {
                                st.budget_blocked_since.get_or_insert_with(Instant::now);
                            }
                            Pick::Idle => self.end_budget_wait(&mut st),
                        }
                    }
                    self.synth_cv.wait(&mut st);
                }
            };
            let t0 = Instant::now();
            self.event(
                Event::new(self.secs(t0), EventKind::SynthStart)
                    .part(task.job, task.index)
                    .worker(w)
                    .bytes(task.bytes),
            );
            let alloc = self.witness_alloc.as_deref();
            let res = match catch_unwind(AssertUnwindSafe(|| {
                task.source.synthesize_in(task.index, alloc)
            })) {
                Ok(Ok(pa)) => Ok(pa),
                Ok(Err(e)) => Err(PartitionError::Source(Arc::from(e))),
                Err(p) => Err(panic_error(p)),
            };
            let t1 = Instant::now();
            let mut end = Event::new(self.secs(t1), EventKind::SynthEnd)
                .part(task.job, task.index)
                .worker(w);
            if let Ok(pa) = &res {
                end = end.bytes(pa.memory_bytes() as u64);
            }
            self.event(end);

            let mut garbage: Vec<ProvingAssignment> = Vec::new();
            let mut st = self.state.lock();
            st.synth_busy -= 1;
            let alive = match st.jobs.get_mut(&task.job) {
                Some(j) => {
                    j.in_synth -= 1;
                    let rs = j.randomness.as_ref().map(|v| v[task.index]);
                    Some((j.circuit.clone(), rs, j.self_check))
                }
                None => None,
            };
            match (res, alive) {
                (Ok(pa), Some((circuit, rs, self_check))) => {
                    let held = pa.memory_bytes() as u64;
                    // The synthesis' scratch is free again.
                    st.release(task.scratch_bytes);
                    let mut reserved = task.bytes - task.scratch_bytes;
                    if held > task.proving_bytes {
                        // The shape under-predicted the allocation: account
                        // for the truth (and record it) rather than pretend.
                        let extra = held - task.proving_bytes;
                        st.overcommit += extra;
                        st.reserve(extra);
                        reserved += extra;
                    }
                    st.hold(held);
                    st.ready.push(Ready {
                        job: task.job,
                        index: task.index,
                        pa,
                        reserved,
                        held,
                        queued: t1,
                        synthesis: t1 - t0,
                        circuit,
                        rs,
                        self_check,
                    });
                    self.event(
                        Event::new(self.secs(t1), EventKind::GpuQueued).part(task.job, task.index),
                    );
                    self.gpu_cv.notify_all();
                }
                (Ok(pa), None) => {
                    st.release(task.bytes);
                    garbage.push(pa);
                }
                (Err(source), alive) => {
                    st.release(task.bytes);
                    if alive.is_some() {
                        let err = EngineError::Partition {
                            index: task.index,
                            stage: Stage::Synthesis,
                            source,
                        };
                        garbage.extend(self.finish_job(&mut st, task.job, Err(err)));
                    }
                }
            }
            drop(st);
            self.synth_cv.notify_all();
            drop(garbage);
        }
    }

    /// The synthesized partition device `d`'s worker should take, if any.
    /// A worker only takes work while its device is among the least loaded,
    /// so with several devices an idle one is fed before a busy one queues
    /// a second partition. (Some device with the minimum load always has a
    /// free worker, so this never stalls.)
    fn pick_ready(&self, st: &mut State, d: usize) -> Option<Ready> {
        if st.ready.is_empty() {
            return None;
        }
        let min = st.device_load.iter().copied().min().unwrap_or(0);
        if st.device_load[d] > min {
            return None;
        }
        let aging = self.opts.aging;
        let jobs = &st.jobs;
        let load = st.device_load[d];
        // A device takes another partition only while its backend has room
        // for one more working set of that parameter set.
        let (i, _) = st
            .ready
            .iter()
            .enumerate()
            .filter(|(_, r)| load < r.circuit.depths[d])
            .max_by_key(|(_, r)| {
                let p = jobs
                    .get(&r.job)
                    .map(|j| j.effective_priority(aging))
                    .unwrap_or(i64::MIN);
                (p, Reverse(r.job), Reverse(r.index))
            })?;
        Some(st.ready.swap_remove(i))
    }

    pub(super) fn gpu_worker(&self, d: usize, w: usize) {
        let device = self.opts.devices[d];
        loop {
            let item = {
                let mut st = self.state.lock();
                loop {
                    if st.shutdown {
                        return;
                    }
                    if let Some(r) = self.pick_ready(&mut st, d) {
                        st.gpu_busy += 1;
                        if st.device_load[d] == 0 {
                            st.device_busy_since[d] = Some(Instant::now());
                        }
                        st.device_load[d] += 1;
                        if !st.ready.is_empty() {
                            // The loads changed: a worker of another device
                            // may now be among the least loaded.
                            self.gpu_cv.notify_all();
                        }
                        break r;
                    }
                    self.gpu_cv.wait(&mut st);
                }
            };
            let Ready {
                job,
                index,
                pa,
                reserved,
                held,
                queued,
                synthesis,
                circuit,
                rs,
                self_check,
            } = item;
            // The one way a partition is proved (evaluate → assemble →
            // self-check), with fresh r, s. No engine lock around it: the
            // backend serialises what must be serialised on its device,
            // and `depths` bounds how many partitions are inside at once.
            let backend = &self.backends[d];
            let key = &circuit.keys[d];
            let g0 = Instant::now();
            self.event(
                Event::new(self.secs(g0), EventKind::GpuStart)
                    .part(job, index)
                    .device(device, w),
            );
            let res = catch_unwind(AssertUnwindSafe(|| {
                let (r, s) = rs.unwrap_or_else(|| {
                    (Fr::random(rand::rngs::OsRng), Fr::random(rand::rngs::OsRng))
                });
                let pvk = self_check.then_some(&circuit.pvk);
                prove_assignment(key, pvk, pa, r, s, backend.as_ref())
            }));
            let res = match res {
                Ok(Ok(out)) => Ok(out),
                Ok(Err(e)) => Err((stage_of(&e), PartitionError::Prover(Arc::new(e)))),
                Err(p) => Err((Stage::Gpu, panic_error(p))),
            };
            let g1 = res
                .as_ref()
                .map_or_else(|_| Instant::now(), |out| out.evaluate_start + out.evaluate);
            self.event(
                Event::new(self.secs(g1), EventKind::GpuEnd)
                    .part(job, index)
                    .device(device, w),
            );
            {
                let mut st = self.state.lock();
                st.release(reserved);
                st.unhold(held);
                st.device_load[d] -= 1;
                if st.device_load[d] == 0 {
                    if let Some(since) = st.device_busy_since[d].take() {
                        st.device_busy[d] += since.elapsed();
                    }
                }
                st.gpu_busy -= 1;
            }
            self.synth_cv.notify_all();
            self.gpu_cv.notify_all();

            let res = res.map(|out| {
                let mut stages = Timings::default();
                let (mut assembly, mut verify) = (Duration::ZERO, Duration::ZERO);
                for (name, dur) in out.timings.stages() {
                    match *name {
                        "epilogue" => assembly += *dur,
                        "verify" => verify += *dur,
                        _ => stages.add(name, *dur),
                    }
                }
                for (what, n) in out.timings.counts() {
                    stages.count(what, *n);
                }
                // Each stage where it really ran (the backend's spans; with
                // two GPU workers one partition's H step runs beside
                // another's MSMs), and work beside the stages (CPU
                // classification) marked as such.
                for sp in out.timings.spans() {
                    if matches!(sp.stage, "epilogue" | "verify") {
                        continue;
                    }
                    let mut e = Event::new(self.secs(sp.start), EventKind::Stage)
                        .part(job, index)
                        .device(device, w)
                        .name(sp.stage)
                        .dur(sp.dur.as_secs_f64());
                    if !sp.staged {
                        e.detail = Some("beside".into());
                    }
                    self.event(e);
                }
                let a0 = self.secs(g1);
                self.event(
                    Event::new(a0, EventKind::Assembly)
                        .part(job, index)
                        .device(device, w)
                        .dur(assembly.as_secs_f64()),
                );
                self.event(
                    Event::new(a0 + assembly.as_secs_f64(), EventKind::Verify)
                        .part(job, index)
                        .device(device, w)
                        .dur(verify.as_secs_f64()),
                );
                Done {
                    proof: out.proof,
                    inputs: out.inputs,
                    times: PartitionTimes {
                        synthesis,
                        gpu_wait: g0 - queued,
                        gpu: g1 - g0,
                        stages,
                        assembly,
                        verify,
                        device,
                    },
                }
            });

            // The job's set is no longer used by this partition: release it
            // before the job can be reported finished (a caller may evict
            // the set as soon as its job is over).
            drop(circuit);
            let mut st = self.state.lock();
            let garbage = match res {
                Ok(done) => {
                    self.complete_partition(&mut st, job, index, done);
                    Vec::new()
                }
                Err((stage, source)) => {
                    if st.jobs.contains_key(&job) {
                        self.finish_job(
                            &mut st,
                            job,
                            Err(EngineError::Partition {
                                index,
                                stage,
                                source,
                            }),
                        )
                    } else {
                        Vec::new()
                    }
                }
            };
            drop(st);
            drop(garbage);
        }
    }

    fn complete_partition(&self, st: &mut State, job: u64, index: usize, done: Done) {
        let Some(j) = st.jobs.get_mut(&job) else {
            return;
        };
        if j.done[index].is_none() {
            j.done[index] = Some(done);
            j.remaining -= 1;
        }
        st.partitions_done += 1;
        if j.remaining > 0 {
            return;
        }
        // Assemble in partition order: slot i holds partition i's proof.
        let j = st.jobs.remove(&job).expect("present");
        let mut out = JobOutput {
            job: JobId(job),
            proofs: Vec::with_capacity(j.done.len()),
            inputs: Vec::with_capacity(j.done.len()),
            partitions: Vec::with_capacity(j.done.len()),
            submitted_at: j.submitted_at,
            finished_at: 0.0,
        };
        for d in j.done.into_iter().flatten() {
            out.proofs.push(d.proof);
            out.inputs.push(d.inputs);
            out.partitions.push(d.times);
        }
        let now = self.secs(Instant::now());
        out.finished_at = now;
        st.jobs_done += 1;
        self.event(Event::new(now, EventKind::JobDone).job(job));
        // The set is released before the job is reported finished.
        drop(j.circuit);
        j.shared.set(Ok(out));
        self.room_cv.notify_all();
    }

    /// Ends a job with an error (or cancellation): drops its queued
    /// partitions, returns them for dropping outside the lock.
    fn finish_job(&self, st: &mut State, job: u64, result: JobResult) -> Vec<ProvingAssignment> {
        let Some(j) = st.jobs.remove(&job) else {
            return Vec::new();
        };
        let mut garbage = Vec::new();
        let mut i = 0;
        while i < st.ready.len() {
            if st.ready[i].job == job {
                let r = st.ready.swap_remove(i);
                st.release(r.reserved);
                st.unhold(r.held);
                garbage.push(r.pa);
            } else {
                i += 1;
            }
        }
        let now = self.secs(Instant::now());
        match &result {
            Err(EngineError::Cancelled) => {
                st.jobs_cancelled += 1;
                self.event(Event::new(now, EventKind::JobCancelled).job(job));
            }
            Err(e) => {
                st.jobs_failed += 1;
                self.event(
                    Event::new(now, EventKind::JobFailed)
                        .job(job)
                        .detail(e.to_string()),
                );
            }
            Ok(_) => {}
        }
        drop(j.circuit);
        j.shared.set(result);
        self.room_cv.notify_all();
        self.synth_cv.notify_all();
        garbage
    }

    pub(super) fn cancel(&self, job: u64) -> bool {
        let mut st = self.state.lock();
        if !st.jobs.contains_key(&job) {
            return false;
        }
        let garbage = self.finish_job(&mut st, job, Err(EngineError::Cancelled));
        drop(st);
        drop(garbage);
        true
    }

    pub(super) fn stats(&self) -> EngineStats {
        let w = self
            .witness_alloc
            .as_ref()
            .map(|a| a.counts())
            .unwrap_or_default();
        let st = self.state.lock();
        let uptime = self.epoch.elapsed();
        EngineStats {
            uptime_s: uptime.as_secs_f64(),
            jobs_active: st.jobs.len(),
            partitions_waiting: st.jobs.values().map(|j| j.bytes.len() - j.next).sum(),
            synthesis_busy: st.synth_busy,
            synthesis_workers: self.opts.concurrency,
            gpu_queue: st.ready.len(),
            gpu_workers_busy: st.gpu_busy,
            gpu_workers: self.opts.devices.len() * self.opts.gpu_workers_per_device,
            device_busy_s: st
                .device_busy
                .iter()
                .zip(&st.device_busy_since)
                .map(|(d, since)| {
                    let open = since.map_or(Duration::ZERO, |s| s.elapsed());
                    (*d + open).as_secs_f64()
                })
                .collect(),
            memory_reserved: st.reserved,
            memory_peak: st.peak,
            memory_budget: self.opts.memory_budget,
            memory_held: st.held,
            memory_held_peak: st.held_peak,
            memory_overcommit: st.overcommit,
            memory_srs: st.srs_bytes,
            budget_wait_s: (st.budget_wait
                + st.budget_blocked_since
                    .map(|s| s.elapsed())
                    .unwrap_or(Duration::ZERO))
            .as_secs_f64(),
            partitions_done: st.partitions_done,
            jobs_done: st.jobs_done,
            jobs_failed: st.jobs_failed,
            jobs_cancelled: st.jobs_cancelled,
            witness_buffers_made: w.made,
            witness_buffers_reused: w.reused,
            witness_buffers_freed: w.freed,
        }
    }
}
