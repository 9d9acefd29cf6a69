#!/usr/bin/env bash
# Device run 3 of session 17 (2026-12-03), on the warm machine of run 2:
# waits for the 32 GiB PoRep test parameters; 2 KiB PoRep C2 again with
# --memory-limit 1GiB (run 2's 160 MiB was below the streamed minimum of
# 0.5 GiB and was refused at placement, as it should be), checked by
# verify_seal; then starts
# `cuzk bench porep --sector-size 32GiB -j 8 -c 64 --gw 2 --backend gpu`
# in the background (resident; witnesses by DMA from the page-locked
# pool): steady state, J = 8. Run 4 collects it.
. "$(dirname "$0")/lib.sh"
while ! grep -q '^rc=' /tmp/s17/params32.log 2>/dev/null; do
  [ "$(left 560)" -lt 0 ] && break
  sleep 5
done
cp /tmp/s17/params32.log "$O/params32.log"
T testdata_2k 120 /tmp/s17/cuzk testdata porep --sector-size 2KiB --generator cuzk-gpu --dir /tmp/s17/td2
c1_from_log
export CUZK_R1CS_CACHE=/tmp/s17/r1cs
T porep_2k_limit 120 /tmp/s17/cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$P2" --out /tmp/s17/limit.proof --backend gpu --memory-limit 1GiB
T verify_2k_limit 60 /tmp/s17/cuzk verify porep --c1 "$C1" --proof /tmp/s17/limit.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$P2"
rm -rf /tmp/s17/td2
PD=/tmp/s17/td32/params
ls -l "$PD" >> "$O/log.txt" 2>&1; df -h /tmp >> "$O/log.txt"; free -g >> "$O/log.txt"
J=${J:-8}
extra=""; [ -n "${LIMIT:-}" ] && extra="--memory-limit $LIMIT"
setsid bash -c "cd /tmp/s17 && CUZK_R1CS_CACHE=/tmp/s17/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $PD -j $J -c 64 --gw 2 --backend gpu $extra --timeline /tmp/s17/timeline32.jsonl --json > /tmp/s17/bench32.out 2> /tmp/s17/bench32.err; echo rc=\$? >> /tmp/s17/bench32.err" < /dev/null > /dev/null 2>&1 &
sleep 15
cp /tmp/s17/bench32.err "$O/bench32-start.err" 2>/dev/null
finish
