#!/usr/bin/env bash
# Device run 3 of session 14 (2026-12-03). Issue 18: the MSM with its
# scratch kept by the pool (release threshold = the largest MSM's scratch)
# and the pair passes prefetching the next pair's points into L2; A/B of
# the prefetch (CUZK_MSM_PREFETCH=0) and of the affine rounds' chunk (2^25
# default against 2^26: half the direct inversions, +3.2 GB), G1 at the
# proof's shape 2^24 − 1 and 2^27 − 1 with the phase profile; then the MSM
# and groth16 GPU tests.
# Carried: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-msm -p
# cuzk-groth16 --test gpu --test gpu_device --bench gpu_msm --anchor
# --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
P="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1"
for v in "pf1 1 25" "pf0 0 25" "pf1_chunk26 1 26"; do
  set -- $v
  T msm_$1 150 env $P CUZK_MSM_PREFETCH=$2 CUZK_MSM_ROUND_CHUNK=$3 CUZK_MSM_BENCH_LOGS="24,27;" CUZK_BENCH_OUT="$O/msm_$1.csv" "$MSM" --bench
done
T msm_gpu_device 200 "$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)" --include-ignored --test-threads=1
T groth16_gpu "$(left 585)" "$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)" --include-ignored --test-threads=1
finish
