#!/usr/bin/env bash
# Device run 2 of session 5 (2026-12-01), right after run 1 on the same
# machine: waits for the 32 GiB PoRep test parameters run 1 started, then
# `cuzk bench porep --sector-size 32GiB` on the engine (shape-correct random
# C1s, self-check off), parameters loaded once and resident on the GPU.
. "$(dirname "$0")/lib.sh"
CUZK=/tmp/s5/cuzk
while ! grep -q '^rc=' /tmp/s5/params32.log 2>/dev/null; do
  [ "$(left 560)" -lt 0 ] && break
  sleep 5
done
cp /tmp/s5/params32.log "$O/params32.log" 2>/dev/null
PD=$(dirname "$(grep -a '^params ' /tmp/s5/params32.log | awk '{print $2}')")
ls -l "$PD" >> "$O/log.txt" 2>&1
free -g >> "$O/log.txt"
J=${J:-3}
T bench_porep32 "$(left 580)" "$CUZK" bench porep --sector-size 32GiB --param-cache "$PD" -j "$J" --gw 2 --backend gpu --timeline "$O/timeline32.jsonl" --json
grep -a '^{' "$O/log.txt" | tail -1 > "$O/bench32.json"
gzip -f "$O/timeline32.jsonl"
finish
