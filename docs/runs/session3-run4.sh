#!/usr/bin/env bash
# Device run 4 of session 3 (2026-11-30): the window sums combined on the
# host (was one GPU thread): the MSM GPU tests (G1 and G2, every path that
# returns an MSM: dense, device scalars, gathers, streamed, every window),
# the focused MSM bench, then cuzk vs bellperson + supraseal-c2 at 2^22 and
# 2^24 (batch 10) with both session-3 changes.
# Bundle: `cargo xtask gpu-bundle -p cuzk-msm --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
MSMT=$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)
BENCH=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
export CUZK_EXPECT_GPU=1
T msm_gpu_tests 90 "$MSMT" --include-ignored --test-threads=1 --skip large --skip 2_26
T bench 40 env CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/bench.csv" "$BENCH" --bench
mkdir -p /tmp/anchor
T anchor "$(left 500)" "$B/bin/cuzk-anchor" --sizes 22,24 --batch 10 --params-dir /tmp/anchor --json "$O/anchor.json"
finish
