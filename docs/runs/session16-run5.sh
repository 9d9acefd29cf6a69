#!/usr/bin/env bash
# Device run 5 of session 16 (2026-12-03). Issue 18, with the ~110 s of
# budget a fresh start leaves: (1) the gpu_ntt bench with the
# pointwise-input pass as its own kernel instantiation (run 1's build
# compiled the pointwise code into every pass: all transforms +5.6 %);
# (2) G1 2^24 − 1 with the affine rounds' backward pass on two interleaved
# chains per thread (CUZK_MSM_BWD_CHAINS=2) against one, same run; then
# 2^27 − 1 with two chains if time is left (one chain: 1564 ms in run 2).
# Carried: gpu_ntt from `cargo xtask gpu-bundle --out gpu-bundle-3 -p
# cuzk-ntt --test gpu --bench gpu_ntt --no-extras` at d9367d0, gpu_msm
# from the bundle built at the two-chain commit ff379c9
# (`--out gpu-bundle-2`).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
S="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1"
T bench_ntt 70 env CUZK_BENCH_OUT="$O/ntt.csv" "$(ls "$B"/benches/cuzk-ntt--gpu_ntt* | head -1)"
for v in 2 1; do
  T msm24_bwd$v 25 env $S CUZK_MSM_BWD_CHAINS=$v CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/msm24_bwd$v.csv" "$MSM" --bench
done
T msm27_bwd2 90 env $S CUZK_MSM_BWD_CHAINS=2 CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/msm27_bwd2.csv" "$MSM" --bench
finish
