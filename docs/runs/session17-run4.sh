#!/usr/bin/env bash
# Device run 4 of session 17 (2026-12-03), on a fresh machine (run 3's
# machine was given back while its bench ran in the background, 30 s
# after the call: the next call has to follow at once). 2 KiB PoRep C2
# with --memory-limit 1GiB after fixing the streamed chunk sizes (fixed at
# placement: the stream-ordered pool keeps the last pass's scratch, so
# free memory undercounted the room), checked by verify_seal; the 32 GiB
# PoRep test parameters; then `cuzk bench porep --sector-size 32GiB -j 8
# -c 64 --gw 2 --backend gpu` (resident, witnesses by DMA from the
# page-locked pool) in the background, collected by run 5.
# Bundle: gpu-bundle-r4 = `cuzk` (release, --features cuda), lib.sh.
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/s17 && cp "$B/bin/cuzk" /tmp/s17/cuzk
export CUZK_R1CS_CACHE=/tmp/s17/r1cs
T testdata_2k 120 /tmp/s17/cuzk testdata porep --sector-size 2KiB --generator cuzk-gpu --dir /tmp/s17/td2
c1_from_log
T porep_2k_limit 120 /tmp/s17/cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$P2" --out /tmp/s17/limit.proof --backend gpu --memory-limit 1GiB
T verify_2k_limit 60 /tmp/s17/cuzk verify porep --c1 "$C1" --proof /tmp/s17/limit.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$P2"
rm -rf /tmp/s17/td2
T params32 300 /tmp/s17/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s17/td32
PD=/tmp/s17/td32/params
df -h /tmp >> "$O/log.txt"; free -g >> "$O/log.txt"
setsid bash -c "cd /tmp/s17 && ./cuzk bench porep --sector-size 32GiB --param-cache $PD -j 8 -c 64 --gw 2 --backend gpu --timeline /tmp/s17/timeline32.jsonl --json > /tmp/s17/bench32.out 2> /tmp/s17/bench32.err; echo rc=\$? >> /tmp/s17/bench32.err" < /dev/null > /dev/null 2>&1 &
while ! grep -q '^rc=' /tmp/s17/bench32.err 2>/dev/null; do
  [ "$(left 570)" -lt 0 ] && break
  sleep 5
done
tail -c 100000 /tmp/s17/bench32.err > "$O/bench32-sofar.err" 2>/dev/null
finish
