#!/usr/bin/env bash
# Session 29, device call 3, on the warm machine after the 32 GiB bench:
# the pairing bench and SnarkPack with its Miller loops on the GPU against
# bellperson on 16 cores at n = 1024 and 8192 (session28-pairing.sh's
# timed part), then an 8 MiB NI-PoRep sector proved on the GPU.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
W=/tmp/s26
cd $W
for shape in "512 10" "4096 10" "16384 4"; do
  # shellcheck disable=SC2086
  T "pairing-bench-${shape// /x}" 120 "$B/bin/pairing_bench" $shape 3
done
for n in ${NS:-1024 8192}; do
  T "snarkpack-gpu-$n" 300 "$B/bin/aggregate_vs_bellperson" "$n" 2
done
[ "$(left 420)" -gt 0 ] && NI=8MiB . "$HERE/session29-ni.sh"
finish
grep -a -E "^cpu:|^gpu|^n = |bellperson:" "$O/log.txt"
