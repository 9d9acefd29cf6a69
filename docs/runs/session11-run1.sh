#!/usr/bin/env bash
# Device run 1 of session 11 (2026-12-02), a fresh machine. Issue 18:
# batch-affine bucket accumulation (msm_rounds.cuh: buckets padded to 2^R,
# R rounds of pairwise affine adds with simultaneous inversion, then the
# XYZZ levels).
# - correctness: the GPU MSM tests (GPU == CPU, known-log MSMs up to 2^26,
#   every window width, awkward bases);
# - speed: A/B of the rounds (auto) against none (CUZK_MSM_ROUNDS=0),
#   G1 2^20/2^24 twice each, then G1 2^24/2^27 and G2 2^24 with auto
#   rounds and with one fewer round forced.
# Bundle: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-msm --test
# gpu_device --bench gpu_msm --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
for r in 1 2; do
  for m in auto 0; do
    if [ $m = auto ]; then unset CUZK_MSM_ROUNDS; else export CUZK_MSM_ROUNDS=$m; fi
    T "focus_rounds_${m}_$r" 90 env CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/focus_${m}_$r.csv" "$MSM" --bench
  done
done
unset CUZK_MSM_ROUNDS
T msm_gpu_tests 240 "$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)" --include-ignored --test-threads=1
T big_auto "$(left 480)" env CUZK_MSM_BENCH_LOGS="24,27;24" CUZK_BENCH_OUT="$O/big_auto.csv" "$MSM" --bench
T big_r5 "$(left 585)" env CUZK_MSM_ROUNDS=5 CUZK_MSM_BENCH_LOGS="24;24" CUZK_BENCH_OUT="$O/big_r5.csv" "$MSM" --bench
finish
