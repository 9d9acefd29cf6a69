#!/usr/bin/env bash
# The GPU Miller loops (cuzk-pairing) on the device: its GPU tests and
# cuzk-snarkpack's (GPU products against blst's, a whole n = 1024
# aggregate against the CPU one), then the bench of one GIPA-round-shaped
# call (products × pairs) on CPU and GPU, and SnarkPack against
# bellperson with the products on the GPU at n = 1024 and 8192.
# Bundle: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-pairing -p
# cuzk-snarkpack --test gpu`, plus the release examples `pairing_bench`
# (cuzk-pairing) and `aggregate_vs_bellperson` (cuzk-snarkpack), built with
# `--features cuda`, copied into its bin/. About 4 min.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
for t in "$B"/tests/cuzk-pairing--gpu* "$B"/tests/cuzk-snarkpack--gpu*; do
  T "$(basename "$t")" 300 "$t" --include-ignored --test-threads=1
done
for shape in "512 10" "4096 10" "16384 4"; do
  # shellcheck disable=SC2086
  T "pairing-bench-${shape// /x}" 120 "$B/bin/pairing_bench" $shape 3
done
for n in ${NS:-1024 8192}; do
  T "snarkpack-gpu-$n" 400 "$B/bin/aggregate_vs_bellperson" "$n" 2
done
finish
grep -a -E "^cpu:|^gpu|^n = |bellperson:" "$O/log.txt"
