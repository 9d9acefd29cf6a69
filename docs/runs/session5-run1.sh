#!/usr/bin/env bash
# Device run 1 of session 5 (2026-12-01): the one proving path on the GPU.
# Starts the 32 GiB PoRep test parameters in the background (setsid: they
# outlive this call; run 2 waits for them and benches), then, beside it:
# groth16's GPU tests (placement with hollow keys), the engine's GPU test
# (seeded jobs == CPU prove_batch, one and two backends), and 2 KiB PoRep
# C2 on the GPU through the engine (params from cuzk's GPU setup, a
# sealed test sector, three C1 files of which one is truncated: two proofs
# written and accepted by verify_seal, the bad one fails alone).
# Bundle: `cargo xtask gpu-bundle -p cuzk-groth16 -p cuzk-scheduler --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { echo "$B/tests/$1"; }
CUZK=$B/bin/cuzk
mkdir -p /tmp/s5 && cp "$CUZK" /tmp/s5/cuzk
# 32 GiB parameters, in the background (log under /tmp/s5, copied at the end of run 2).
setsid bash -c "cd /tmp/s5 && ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s5/td32 > /tmp/s5/params32.log 2>&1; echo rc=\$? >> /tmp/s5/params32.log" < /dev/null > /dev/null 2>&1 &
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T engine_gpu 240 "$(t cuzk-scheduler--gpu)" --include-ignored --test-threads=1
T testdata_2k 300 "$CUZK" testdata porep --sector-size 2KiB --generator cuzk-gpu --dir /tmp/s5/td2
RUN=$(grep -a '^run: ' "$O/log.txt" | tail -1)
C1=$(echo "$RUN" | sed -E 's/.*--c1 ([^ ]+).*/\1/')
PID=$(echo "$RUN" | sed -E 's/.*--prover-id ([^ ]+).*/\1/')
SID=$(echo "$RUN" | sed -E 's/.*--sector-id ([^ ]+).*/\1/')
PD=$(echo "$RUN" | sed -E 's/.*--param-cache ([^ ]+).*/\1/')
mkdir -p /tmp/s5/c1s && cp "$C1" /tmp/s5/c1s/a.json && cp "$C1" /tmp/s5/c1s/c.json
head -c 2000 "$C1" > /tmp/s5/c1s/b.json
T porep_2k_three 300 "$CUZK" prove porep --c1 /tmp/s5/c1s --prover-id "$PID" --sector-id "$SID" --param-cache "$PD" --out /tmp/s5/proofs --backend gpu
ls -l /tmp/s5/proofs >> "$O/log.txt" 2>&1
for f in a c; do T "verify_2k_$f" 120 "$CUZK" verify porep --c1 /tmp/s5/c1s/$f.json --proof /tmp/s5/proofs/$f.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$PD"; done
T porep_2k_single 300 "$CUZK" prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$PD" --out /tmp/s5/one.proof --backend gpu
cp /tmp/s5/params32.log "$O/params32-sofar.log" 2>/dev/null
free -g >> "$O/log.txt"; df -h /tmp >> "$O/log.txt"
finish
