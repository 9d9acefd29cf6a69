#!/usr/bin/env bash
# Device run 1 of session 16 (2026-12-03). Issue 18: correctness of the two
# new parts on the device, then the H step and the affine rounds' chunk.
# (1) msm gpu_device: precomputed shifted bases (G1 at 1000, 2^16 and
# 2^21 + 3 points against the CPU MSM and the host twin's table; G2);
# (2) ntt gpu h_step tests (the fused a·b − c input) and groth16's GPU
# tests (proofs verify); (3) the gpu_ntt bench (the H step at 2^24 and
# 2^27 with its floors).
# Carried: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-msm -p
# cuzk-groth16 -p cuzk-ntt --test gpu --test gpu_device --bench gpu_msm
# --bench gpu_ntt --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
T msm_precomputed 120 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 precomputed
T ntt_h_step 90 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 h_step
T groth16_gpu 150 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T bench_ntt 120 env CUZK_BENCH_OUT="$O/ntt.csv" "$(ls "$B"/benches/cuzk-ntt--gpu_ntt* | head -1)"
finish
