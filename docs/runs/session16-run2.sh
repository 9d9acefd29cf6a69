#!/usr/bin/env bash
# Device run 2 of session 16 (2026-12-03). Issue 18: precomputed shifted
# bases, copies against window width. G1 at 2^24 − 1 and 2^27 − 1 (the
# proof's H shape): the plain MSM, then sets of `cxk` (width c, k copies;
# the bucket windows are ceil(ceil(256/c)/k)): at 2^24 16x1 (the plain
# width through the copy path), 16x4, 16x16, 18x15, 20x13, 21x13; at 2^27
# 20x2, 20x4, 20x5 (the memory a PoRep placement can spare: ≤ 5 copies of
# 12.9 GB beside the plain set and the MSM's 22 GB), 21x5. Each with its
# build time, first call and warm median; every result checked. Profile on.
# Same bundle as run 1.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
T msm_pre "$(left 585)" env CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1 CUZK_MSM_BENCH_LOGS="24,27;" \
  CUZK_MSM_BENCH_PRECOMPUTE="24=16x1,16x4,16x16,18x15,20x13,21x13;27=20x2,20x4,20x5,21x5" \
  CUZK_BENCH_OUT="$O/msm_pre.csv" "$MSM" --bench
finish
