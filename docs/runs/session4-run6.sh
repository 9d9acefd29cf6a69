#!/usr/bin/env bash
# Device run 6 of session 4 (2026-11-30), the last ~170 s of device time:
# after the review changes (DeviceBuffer range helpers refactored,
# pipeline_depth per parameter set), the GPU tests that cover them:
# the stager, the NTT H step (staged and profiled), groth16 on the GPU
# (pipelined batch, transient and resident sets, bellperson verifies).
# Bundle: `cargo xtask gpu-bundle -p cuzk-pinned-mem -p cuzk-ntt -p cuzk-groth16 --anchor --no-extras`, tests only.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { echo "$B/tests/$1"; }
T stager_test 30 "$(t cuzk-pinned-mem--stager_gpu)" --include-ignored --test-threads=1
T groth16_gpu 60 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T ntt_h_step 60 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 h_step
finish
