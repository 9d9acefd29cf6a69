#!/usr/bin/env bash
# Device run 2 of session 17 (2026-12-03), after fixing placement under a
# memory limit (`place` of a hollow key that the limit streams): the engine
# with deferred partitions again (scheduler gpu_engine), then 2 KiB PoRep
# C2 through the engine on the GPU, resident and with --memory-limit 160MiB
# (streamed: every base set through the device per MSM, a, b, c on the
# CPU), each checked by verify_seal before it is written and again by
# `cuzk verify porep`; then the 32 GiB PoRep test parameters in the
# background for run 3.
# Bundle: gpu-bundle-r2 = the gpu_engine test executable and `cuzk`
# (release, `--features cuda`), stripped, with lib.sh.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
mkdir -p /tmp/s17 && cp "$B/bin/cuzk" /tmp/s17/cuzk
T engine_gpu 120 "$(t cuzk-scheduler--gpu_engine)" --include-ignored --test-threads=1
T testdata_2k 200 /tmp/s17/cuzk testdata porep --sector-size 2KiB --generator cuzk-gpu --dir /tmp/s17/td2
c1_from_log
export CUZK_R1CS_CACHE=/tmp/s17/r1cs
for mode in resident limit; do
  extra=""; [ $mode = limit ] && extra="--memory-limit 160MiB"
  T "porep_2k_$mode" 120 /tmp/s17/cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$P2" --out /tmp/s17/$mode.proof --backend gpu $extra
  T "verify_2k_$mode" 60 /tmp/s17/cuzk verify porep --c1 "$C1" --proof /tmp/s17/$mode.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$P2"
done
T too_small 60 /tmp/s17/cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$P2" --out /tmp/s17/tiny.proof --backend gpu --memory-limit 8MiB
rm -rf /tmp/s17/td2
setsid bash -c "cd /tmp/s17 && ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s17/td32 > /tmp/s17/params32.log 2>&1; echo rc=\$? >> /tmp/s17/params32.log" < /dev/null > /dev/null 2>&1 &
finish
