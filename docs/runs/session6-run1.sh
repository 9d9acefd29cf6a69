#!/usr/bin/env bash
# Device run 1 of session 6 (2026-12-01): issue 14's load comparison.
# Generates the 32 GiB PoRep test parameters (cuzk's GPU setup, ~200 s,
# 47.4 GB), then `cuzk-anchor --load-only` loads that one file with cuzk
# (read, decode, resident on the device through the engine's SRS cache)
# and with supraseal-c2 (SuprasealParameters::new, then drop, which joins
# its reader thread), two rounds each, in turn, from the page cache.
# Run 2 follows on the same warm machine and reuses /tmp/s6.
# Bundle: `cargo xtask gpu-bundle -p cuzk-groth16 --no-extras --anchor`.
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/s6 && cp "$B/bin/cuzk" "$B/bin/cuzk-anchor" /tmp/s6/
T params32 420 /tmp/s6/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s6/td32
F=$(ls /tmp/s6/td32/params/*.params | head -1)
ls -l "$F" >> "$O/log.txt" 2>&1; free -g >> "$O/log.txt"
T load_only 400 /tmp/s6/cuzk-anchor --load-only "$F" --load-rounds 2 --json "$O/load.json"
grep -a 'load-only\|cuzk: parameters' "$O/log.txt" > "$O/load.txt"
free -g >> "$O/log.txt"
finish
