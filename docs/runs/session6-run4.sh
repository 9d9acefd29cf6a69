#!/usr/bin/env bash
# Device run 4 of session 6 (2026-12-01), on run 3's warm machine (its
# parameters, and the 32 GiB circuit it recorded under $CUZK_R1CS_CACHE):
# the 32 GiB PoRep bench at synthesis concurrency c = 64 (4x the cores),
# first through the pre-compiled path (the default), J = 3, then with the
# classic synthesis, J = 2, in the time left: the memory budget must make
# partitions wait instead of running the 128 GiB host out of memory.
# `free` is sampled every 2 s for the peak.
. "$(dirname "$0")/lib.sh"
export CUZK_R1CS_CACHE=/tmp/s6/r1cs
PD=/tmp/s6/td32/params
( while sleep 2; do free -b | awk 'NR==2{print $3}' >> "$O/used_bytes.txt"; done ) &
SAMPLER=$!
T bench32_compiled_c64 330 /tmp/s6/cuzk bench porep --sector-size 32GiB --param-cache $PD -j 3 -c 64 --gw 2 --backend gpu --timeline "$O/timeline-compiled.jsonl" --json
sort -n "$O/used_bytes.txt" | tail -1 > "$O/peak_used_compiled.txt"
T bench32_classic_c64 $(( $(left 585) > 10 ? $(left 585) : 5 )) /tmp/s6/cuzk bench porep --sector-size 32GiB --param-cache $PD -j 2 -c 64 --gw 2 --backend gpu --synthesis classic --timeline "$O/timeline-classic.jsonl" --json
kill $SAMPLER
sort -n "$O/used_bytes.txt" | tail -1 > "$O/peak_used_bytes.txt"
gzip -f "$O"/timeline-*.jsonl
finish
