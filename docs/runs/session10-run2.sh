#!/usr/bin/env bash
# Device run 2 of session 10 (2026-12-02). Issue 18:
# - A/B of the MSM's level 0: equal chunks across bucket boundaries (the
#   new default) against per-bucket segments (CUZK_MSM_L0=segments), each
#   twice, G1 2^20 and 2^24 (focused bench); the field multiplier against
#   the dedicated squaring in isolation (field_mul bench);
# - the H step's buffers kept in a pool: NTT, prover and engine GPU tests
#   (GPU == CPU, bellperson verifies, fault injection returns device
#   memory to its baseline).
# Carried: tests cuzk-ntt--gpu, cuzk-groth16--gpu, cuzk-scheduler--gpu_faults,
# benches cuzk-msm--gpu_msm and cuzk-gpu--field_mul (stripped), from
# `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-gpu -p cuzk-ntt -p
# cuzk-msm -p cuzk-groth16 -p cuzk-scheduler --test gpu_device --test gpu
# --test gpu_faults --bench gpu_msm --bench field_mul --anchor --no-extras`
# (over 64 MiB as a whole: split between runs 2 and 3). The msm sources
# then held both level-0 variants behind CUZK_MSM_L0 (measurement only;
# the chunks lost and were deleted).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
FM=$(ls "$B"/benches/cuzk-gpu--field_mul* | head -1)
T field_mul 120 env CUZK_BENCH_OUT="$O/field_mul.csv" "$FM" --bench
for r in 1 2; do
  for m in chunks segments; do
    T "msm_focus_${m}_$r" 90 env CUZK_MSM_L0=$m CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/focus_${m}_$r.csv" "$MSM" --bench
  done
done
T ntt_gpu 120 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1
T groth16_gpu 200 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T sched_faults 150 "$(t cuzk-scheduler--gpu_faults)" --include-ignored --test-threads=1 --nocapture
finish
