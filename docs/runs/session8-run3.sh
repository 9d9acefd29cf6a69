#!/usr/bin/env bash
# Device run 3 of session 8 (2026-12-02), on run 2's warm machine (its
# parameters): the 32 GiB PoRep bench at c = 64 through the classic
# synthesis, J = 1: ~21 GB reserved per partition, so the memory budget
# must make partitions wait instead of running the 128 GiB host out of
# memory (the compiled path of run 2 reserves 4.2 GB per partition).
# Then WinningPoSt at 32 GiB: parameters from the GPU setup (2^19,
# seconds) and `cuzk bench winning-post` (random shape-correct vanilla
# proofs, J = 6), for its latency with the parameters resident.
. "$(dirname "$0")/lib.sh"
cp "$B/bin/cuzk" /tmp/s8/cuzk   # this bundle's build (it may be newer than run 1's)
PD=/tmp/s8/td32/params
( while sleep 2; do free -b | awk 'NR==2{print $3}' >> "$O/used_bytes.txt"; done ) &
SAMPLER=$!
T bench32_classic_c64 $(( $(left 420) > 10 ? $(left 420) : 5 )) /tmp/s8/cuzk bench porep --sector-size 32GiB \
  --param-cache $PD -j 1 -c 64 --gw 2 --backend gpu --synthesis classic --timeline "$O/timeline-classic.jsonl" --json
kill $SAMPLER
sort -n "$O/used_bytes.txt" | tail -1 > "$O/peak_used_bytes.txt"
T winning32_params 60 /tmp/s8/cuzk testdata winning-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s8/tdw
T bench_winning32 $(( $(left 570) > 10 ? $(left 570) : 5 )) /tmp/s8/cuzk bench winning-post --sector-size 32GiB \
  --param-cache /tmp/s8/tdw/params -j 6 --gw 2 --backend gpu --timeline "$O/timeline-winning32.jsonl" --json
gzip -f "$O"/timeline-*.jsonl
finish
