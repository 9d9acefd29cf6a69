#!/usr/bin/env bash
# Device run 2 of session 17 (2026-12-03), on the warm machine of run 1:
# waits for the 32 GiB PoRep test parameters, then starts
# `cuzk bench porep --sector-size 32GiB -j 8 -c 64 --gw 2 --backend gpu`
# in the background (resident; witnesses by DMA from the page-locked
# pool): steady state, J = 8. Run 3 collects it.
. "$(dirname "$0")/lib.sh"
while ! grep -q '^rc=' /tmp/s17/params32.log 2>/dev/null; do
  [ "$(left 560)" -lt 0 ] && break
  sleep 5
done
cp /tmp/s17/params32.log "$O/params32.log"
PD=/tmp/s17/td32/params
ls -l "$PD" >> "$O/log.txt" 2>&1; df -h /tmp >> "$O/log.txt"; free -g >> "$O/log.txt"
J=${J:-8}
LIMIT=${LIMIT:-}
extra=""; [ -n "$LIMIT" ] && extra="--memory-limit $LIMIT"
setsid bash -c "cd /tmp/s17 && CUZK_R1CS_CACHE=/tmp/s17/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $PD -j $J -c 64 --gw 2 --backend gpu $extra --timeline /tmp/s17/timeline32.jsonl --json > /tmp/s17/bench32.out 2> /tmp/s17/bench32.err; echo rc=\$? >> /tmp/s17/bench32.err" < /dev/null > /dev/null 2>&1 &
sleep 20
cp /tmp/s17/bench32.err "$O/bench32-start.err" 2>/dev/null
finish
