#!/usr/bin/env bash
# Device run 5 of session 16 (2026-12-03). Issue 18, three checks on a
# fresh machine with what is left of the budget (~400 s): (1) the gpu_ntt
# bench with the pointwise-input pass as its own kernel instantiation (run
# 1's build compiled the pointwise code into every pass: all transforms
# +5.6 %); (2) G1 2^27 − 1 with the affine rounds' backward pass on two
# interleaved chains per thread (CUZK_MSM_BWD_CHAINS=2; one chain: 1564 ms
# in run 2); (3) G1 2^27 − 1 with 4 affine rounds forced
# (CUZK_MSM_ROUNDS=4, what auto picks for the plain set) for the plain set
# and a precomputed 20x5 set (auto picked 6 rounds there in run 2).
# Carried: gpu_ntt from `cargo xtask gpu-bundle --out gpu-bundle-3 -p
# cuzk-ntt --test gpu --bench gpu_ntt --no-extras` (this commit), gpu_msm
# from the bundle built at the two-chain commit (`--out gpu-bundle-2`).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
S="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1 CUZK_MSM_BENCH_LOGS=27;"
T bench_ntt 70 env CUZK_BENCH_OUT="$O/ntt.csv" "$(ls "$B"/benches/cuzk-ntt--gpu_ntt* | head -1)"
T msm27_bwd2 75 env $S CUZK_MSM_BWD_CHAINS=2 CUZK_BENCH_OUT="$O/msm27_bwd2.csv" "$MSM" --bench
T msm27_r4 "$(left 380)" env $S CUZK_MSM_ROUNDS=4 CUZK_MSM_BENCH_PRECOMPUTE="27=20x5" \
  CUZK_BENCH_OUT="$O/msm27_r4.csv" "$MSM" --bench
finish
