#!/usr/bin/env bash
# Device run 2 of session 10 (2026-12-02), on run 1's machine when warm.
# Issue 18: the H step's buffers kept in a pool (no cudaMalloc/cudaFree per
# partition): NTT, prover and engine GPU tests (GPU == CPU, bellperson
# verifies, fault injection returns memory to the baseline); per-stage
# times at 2^24 (`cuzk prove --timings`, 4 proofs pipelined); then the
# side-by-side against supraseal-c2 at 2^22 and 2^24 on both circuits
# (bench: SHA-256 chain + field filler; sha: the chain alone), batch 10.
# Bundle: as run 1.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
T ntt_gpu 120 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1
T groth16_gpu 200 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T sched_faults 150 "$(t cuzk-scheduler--gpu_faults)" --include-ignored --test-threads=1 --nocapture
mkdir -p /tmp/pc /tmp/anchor
T setup24 90 "$B/bin/cuzk" setup --log-size 24 --out /tmp/pc/k24.params
T prove24 90 "$B/bin/cuzk" prove --log-size 24 --params /tmp/pc/k24.params --count 4 --timings --backend gpu --out /tmp/pc/p.bin
ln -sf /tmp/pc/k24.params /tmp/anchor/bench-24.params
T anchor_sha "$(left 400)" "$B/bin/cuzk-anchor" --circuit sha --sizes 22,24 --batch 10 --params-dir /tmp/anchor --json "$O/anchor_sha.json"
T anchor_bench "$(left 570)" "$B/bin/cuzk-anchor" --circuit bench --sizes 24,22 --batch 10 --params-dir /tmp/anchor --json "$O/anchor_bench.json"
finish
