#!/usr/bin/env bash
# Device run 3 of session 4 (2026-11-30): 2^26 side by side in one run
# with the final code (staged H step, pipelined batch of 2): GPU setup,
# then cuzk and bellperson + supraseal-c2, one circuit and a batch of 2
# each, no warm-up, every proof checked by bellperson.
# Bundle: run 2's (`cargo xtask gpu-bundle -p cuzk-pinned-mem -p cuzk-groth16 --anchor --no-extras`).
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/anchor
( while sleep 20; do echo "$(date +%T) $(free -g | awk '/Mem/ {print "used", $3, "G"}') $(nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader)"; done ) > "$O/monitor.txt" 2>&1 &
T setup26 150 "$B/bin/cuzk" setup --log-size 26 --out /tmp/anchor/bench-26.params
T anchor26 "$(left 590)" "$B/bin/cuzk-anchor" --sizes 26 --batch 2 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor26.json"
finish
