#!/usr/bin/env bash
# Device run 4 of session 9 (2026-12-02), a fresh machine: run 3's
# SnapDeals bench again with the random inputs fixed (every challenge of a
# partition now shares the partition's data path above the apex, which
# storage-proofs-update asserts while it synthesizes). The SnapDeals
# 32 GiB test parameters (cuzk's GPU setup) and the circuit's record are
# made at the same time (a bench pointed at an empty parameter folder
# records the circuit, saves it and stops), then `cuzk bench snap
# --sector-size 32GiB -j 1`: one update of 16 partitions, witness-only
# against the record, a, b, c on the GPU.
# Bundle: `cargo xtask gpu-bundle -p cuzk-spmv --test gpu --no-extras`.
. "$(dirname "$0")/lib.sh"
W=/tmp/s9
mkdir -p $W/empty && cp "$B/bin/cuzk" $W/
C=$W/cuzk
export CUZK_R1CS_CACHE=$W/r1cs
( $C bench snap --sector-size 32GiB --param-cache $W/empty -j 1 --backend gpu > "$O/record.txt" 2>&1 ) &
REC=$!
T snap_params 220 $C testdata snap --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdsnap
wait $REC
T bench_snap32_compiled $(( $(left 430) > 10 ? $(left 430) : 5 )) $C bench snap --sector-size 32GiB \
  --param-cache $W/tdsnap/params -j 1 --gw 2 --backend gpu --timeline "$O/timeline-snap32.jsonl" --json
gzip -f "$O"/timeline-*.jsonl
finish
