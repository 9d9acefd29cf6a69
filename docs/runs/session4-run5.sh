#!/usr/bin/env bash
# Device run 5 of session 4 (2026-11-30): the PoRep 32 GiB domain, 2^27
# constraints of the bench circuit: GPU test setup (~48 GB of parameters),
# then one proof per side (cuzk first; supraseal-c2 if the device time
# lasts), no warm-up, every proof checked by bellperson. The JSON is
# written after each side, so a cut run keeps cuzk's record.
# Bundle: run 2's `cuzk` and `cuzk-anchor` (efb4d40).
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/anchor
( while sleep 15; do echo "$(date +%T) $(free -g | awk '/Mem/ {print "used", $3, "G"}') $(nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader)"; done ) > "$O/monitor.txt" 2>&1 &
T setup27 260 "$B/bin/cuzk" setup --log-size 27 --out /tmp/anchor/bench-27.params
df -h /tmp >> "$O/monitor.txt"
T anchor27 "$(left 575)" "$B/bin/cuzk-anchor" --sizes 27 --batch 1 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor27.json"
finish
