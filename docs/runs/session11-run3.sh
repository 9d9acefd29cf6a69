#!/usr/bin/env bash
# Device run 3 of session 11 (2026-12-02), a fresh machine. Issue 18, the
# affine rounds after run 2 (G1 2^24 357 against 277 ms without them; ncu:
# one Fermat inversion per round and chunk at ≈ 1 ms of single-thread
# latency, plus one more per round for the pairs with equal x that the
# known-log bases produce): inversion by the binary extended Euclidean
# algorithm, P + P kept in the chain (no separate kernel), fewer recursion
# levels on the device.
# - correctness: field tests (inverse == blst), the GPU MSM tests;
# - A/B rounds auto vs none (CUZK_MSM_ROUNDS=0): G1 2^20/2^24, then G1
#   2^24/2^27 and G2 2^24 with rounds;
# - per-kernel durations (ncu) of one G1 2^24 MSM with rounds.
# Bundle: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-groth16 -p
# cuzk-msm -p cuzk-gpu --test gpu --test gpu_device --test field_gpu
# --bench gpu_msm --anchor --no-extras` (this run carries the msm and field
# executables; run 4 the prover test and the anchor).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
T field_gpu 60 "$(ls "$B"/tests/cuzk-gpu--field_gpu* | head -1)" --include-ignored --test-threads=1
T msm_gpu_tests 150 "$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)" --include-ignored --test-threads=1
T focus_auto 60 env CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/focus_auto.csv" "$MSM" --bench
T focus_0 60 env CUZK_MSM_ROUNDS=0 CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/focus_0.csv" "$MSM" --bench
T big_auto 150 env CUZK_MSM_BENCH_LOGS="24,27;24" CUZK_BENCH_OUT="$O/big_auto.csv" "$MSM" --bench
T ncu_24 "$(left 560)" /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum,launch__registers_per_thread --csv --print-units base \
  --launch-count 700 --log-file "$O/ncu.csv" env CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/bench_ncu.csv" "$MSM" --bench
finish
