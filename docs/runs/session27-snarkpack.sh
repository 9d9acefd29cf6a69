#!/usr/bin/env bash
# SnarkPack aggregation on the device host's CPUs (no GPU used): cuzk's
# prover (cuzk-snarkpack) against bellperson's at n = 1024 and 8192
# partition proofs, random proofs and a fake SRS, best of 2, bytes
# compared; the aggregate_vs_bellperson example (`cargo build --release -p
# cuzk-snarkpack --example aggregate_vs_bellperson`, copied into the bundle's bin/).
# About 2 min for both sizes. NS overrides the sizes.
. "$(dirname "$0")/lib.sh"
for n in ${NS:-1024 8192}; do
  T "snarkpack-$n" 400 "$B/bin/aggregate_vs_bellperson" "$n" 2
done
finish
grep -a -E "^n = |bellperson:" "$O/log.txt"
