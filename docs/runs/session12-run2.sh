#!/usr/bin/env bash
# Device run 2 of session 12 (2026-12-02). Issue 18: the NTT's H step test
# left unfinished by run 1 (its 150 s limit), groth16's GPU tests with a, b,
# c freed off the H path once uploaded, then the side by side on the
# SHA-256-only circuit at 2^24 (batch 2, one warm-up) and 2^26 (batch 1),
# with the engine's per-partition account in the log (evaluate against
# its stages). Carried: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p
# cuzk-ntt -p cuzk-groth16 --test gpu --anchor --no-extras` at 8274979 + the
# groth16/anchor changes of this commit.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
T ntt_h_step 120 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 h_step
T groth16_gpu 120 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
mkdir -p /tmp/anchor
T anchor_sha24 "$(left 360)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 2 --warmup 1 --params-dir /tmp/anchor --json "$O/anchor_sha24.json"
rm -f /tmp/anchor/sha-24.params
T anchor_sha26 "$(left 590)" "$B/bin/cuzk-anchor" --circuit sha --sizes 26 --batch 1 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor_sha26.json"
finish
