#!/usr/bin/env bash
# Device run 3 of session 9 (2026-12-02), on run 2's warm machine: waits
# for the SnapDeals 32 GiB test parameters run 2 started, then `cuzk bench
# snap --sector-size 32GiB` (16 partitions of random shape-correct
# partition proofs whose challenged leaves obey new = old + data·rho)
# through the default compiled synthesis (the circuit recorded first,
# then witness-only partitions with a, b, c computed on the GPU), then
# the classic synthesis for comparison as far as the time allows.
# Bundle: as run 2, rebuilt with the SnapDeals record.
. "$(dirname "$0")/lib.sh"
W=/tmp/s9
C=$W/cuzk3
cp "$B/bin/cuzk" $C
export CUZK_R1CS_CACHE=$W/r1cs
while ! grep -q '^rc=' $W/snap_params.log 2>/dev/null && [ "$(left 300)" -gt 0 ]; do sleep 5; done
cp $W/snap_params.log "$O/"
if grep -q '^rc=0' $W/snap_params.log; then
  T bench_snap32_compiled $(( $(left 420) > 10 ? $(left 420) : 5 )) $C bench snap --sector-size 32GiB \
    --param-cache $W/tdsnap/params -j 2 --gw 2 --backend gpu --timeline "$O/timeline-snap32.jsonl" --json
  T bench_snap32_classic $(( $(left 585) > 10 ? $(left 585) : 5 )) $C bench snap --sector-size 32GiB \
    --param-cache $W/tdsnap/params -j 1 --gw 2 --backend gpu --synthesis classic --json
  ls -l $W/r1cs >> "$O/log.txt" 2>&1
  gzip -f "$O"/timeline-*.jsonl
fi
finish
