#!/usr/bin/env bash
# Device run 3 of session 5 (2026-12-01), on a fresh machine: the 32 GiB
# PoRep test parameters again (cuzk's GPU setup, ~205 s), then
# `cuzk bench porep --sector-size 32GiB -j 3 --gw 2` in the background
# (setsid: it outlives this call; run 4 waits for it and collects).
# Bundle: the `cuzk` binary only (`cargo build --release -p cuzk --features cuda`).
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/s5 && cp "$B/bin/cuzk" /tmp/s5/cuzk
T params32 560 /tmp/s5/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s5/td32
PD=/tmp/s5/td32/params
ls -l "$PD" >> "$O/log.txt" 2>&1; free -g >> "$O/log.txt"
J=${J:-3}
setsid bash -c "cd /tmp/s5 && ./cuzk bench porep --sector-size 32GiB --param-cache $PD -j $J --gw 2 --backend gpu --timeline /tmp/s5/timeline32.jsonl --json > /tmp/s5/bench32.out 2> /tmp/s5/bench32.err; echo rc=\$? >> /tmp/s5/bench32.err" < /dev/null > /dev/null 2>&1 &
while ! grep -q '^rc=' /tmp/s5/bench32.err 2>/dev/null; do
  [ "$(left 585)" -lt 0 ] && break
  sleep 5
done
cp /tmp/s5/bench32.err "$O/bench32-sofar.err" 2>/dev/null
finish
