#!/usr/bin/env bash
# Device run 1 of session 17 (2026-12-03). Issues 32/33: the typed
# out-of-memory from the runtime up (gpu runtime; scheduler gpu_faults:
# an injected allocation fault and a real one matched as
# GpuError::OutOfMemory through the engine), the GPU backend with and
# without a device memory limit (groth16 gpu: streamed == resident ==
# CPU, DeviceTooSmall at placement), and the engine with deferred
# partitions whose witnesses go up by DMA from the page-locked pool
# (scheduler gpu_engine: the CPU engine's proof bytes; streamed too).
# Bundle: four stripped test executables from `target/release/deps` (the
# gpu-bundle build of `-p cuzk-gpu -p cuzk-msm -p cuzk-groth16 -p
# cuzk-scheduler --test gpu --test gpu_faults --test gpu_engine --test
# runtime`) in gpu-bundle-r1/tests with lib.sh: the 64 MiB carry limit.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
T gpu_runtime 60 "$(t cuzk-gpu--runtime)" --include-ignored --test-threads=1
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T engine_gpu 120 "$(t cuzk-scheduler--gpu_engine)" --include-ignored --test-threads=1
T faults_gpu 150 "$(t cuzk-scheduler--gpu_faults)" --include-ignored --test-threads=1
finish
