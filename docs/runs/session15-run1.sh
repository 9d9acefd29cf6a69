#!/usr/bin/env bash
# Device run 1 of session 15 (2026-12-03). Issue 18, on the bundle of
# session 14 run 3 (built from 08e00d7: the L2 prefetch in, switched off
# here with CUZK_MSM_PREFETCH=0: main's arithmetic). Two refused
# starts left about 2 minutes of device time after this machine's start,
# so in order of value: (1) the affine rounds' chunk, 2^26 against 2^25
# (the default), G1 at the proof's shape 2^27 − 1 with the phase profile;
# (2) with what is left, the 2^24 side by side with supraseal-c2, both
# sides warm (one warm-up proof), one circuit, SHA-256-only circuit.
# Carried: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-msm -p
# cuzk-groth16 --test gpu --test gpu_device --bench gpu_msm --anchor
# --no-extras` at 08e00d7.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1 CUZK_MSM_PREFETCH=0
MSM=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
P="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1"
for c in 26 25; do
  T msm27_chunk$c 50 env $P CUZK_MSM_ROUND_CHUNK=$c CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/msm27_chunk$c.csv" "$MSM" --bench
done
mkdir -p /tmp/anchor
T anchor24 "$(left 280)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 1 --warmup 1 \
  --params-dir /tmp/anchor --json "$O/anchor24.json"
finish
