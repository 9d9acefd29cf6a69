#!/usr/bin/env bash
# Device run 2 of session 8 (2026-12-02), on run 1's warm machine and its
# 32 GiB parameters (/tmp/s8/td32):
# - issue 14: `cuzk-anchor --load-only`: cuzk (read, decode, resident
#   through the engine's SRS cache) and supraseal-c2
#   (SuprasealParameters::new, then drop, which joins its reader thread)
#   load that one file, two rounds each, in turn, from the page cache;
# - issues 14/15: the 32 GiB PoRep bench at synthesis concurrency c = 64
#   (4x the cores) through the pre-compiled path (the default: the circuit
#   is recorded on first use into $CUZK_R1CS_CACHE, each partition is
#   witness-only and a, b, c are computed on the GPU), J = 3.
# `free` is sampled every 2 s for the peak.
. "$(dirname "$0")/lib.sh"
cp "$B/bin/cuzk" /tmp/s8/cuzk   # this bundle's build (it may be newer than run 1's)
export CUZK_R1CS_CACHE=/tmp/s8/r1cs
PD=/tmp/s8/td32/params
F=$(ls $PD/*.params | head -1)
T load_only 200 /tmp/s8/cuzk-anchor --load-only "$F" --load-rounds 2 --json "$O/load.json"
grep -a 'load-only\|cuzk: parameters' "$O/log.txt" > "$O/load.txt"
( while sleep 2; do free -b | awk 'NR==2{print $3}' >> "$O/used_bytes.txt"; done ) &
SAMPLER=$!
T bench32_compiled_c64 $(( $(left 585) > 10 ? $(left 585) : 5 )) /tmp/s8/cuzk bench porep --sector-size 32GiB \
  --param-cache $PD -j 3 -c 64 --gw 2 --backend gpu --timeline "$O/timeline-compiled.jsonl" --json
kill $SAMPLER
sort -n "$O/used_bytes.txt" | tail -1 > "$O/peak_used_bytes.txt"
ls -l /tmp/s8/r1cs >> "$O/log.txt" 2>&1
gzip -f "$O"/timeline-*.jsonl
finish
