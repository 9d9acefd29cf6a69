#!/usr/bin/env bash
# Device run 3 of session 10 (2026-12-02). Issue 18: the side-by-side
# against supraseal-c2 at 2^26 and 2^27 on the SHA-256-only circuit (both
# sides' proofs checked by bellperson), one proof alone and a batch of 2 at
# 2^26, one at 2^27; parameters by cuzk's GPU setup inside this run.
# Bundle: as run 1.
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/anchor
( while sleep 15; do echo "$(date +%T) $(free -g | awk '/Mem/ {print "used", $3, "G"}') $(nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader)"; done ) > "$O/monitor.txt" 2>&1 &
T anchor_sha26 "$(left 260)" "$B/bin/cuzk-anchor" --circuit sha --sizes 26 --batch 2 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor_sha26.json"
rm -f /tmp/anchor/sha-26.params
T anchor_sha27 "$(left 580)" "$B/bin/cuzk-anchor" --circuit sha --sizes 27 --batch 1 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor_sha27.json"
df -h /tmp >> "$O/monitor.txt"
finish
