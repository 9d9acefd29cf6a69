#!/usr/bin/env bash
# Device run 2 of session 9 (2026-12-02), on run 1's warm machine.
# - Issue 19: device faults (allocation, copy, launch, a wrong MSM result,
#   a real out-of-memory) through the engine on a GpuBackend.
# - Issue 17: waits for run 1's WindowPoSt 32 GiB parameters (started in
#   their own process session), then `cuzk bench window-post` on one full
#   partition of 2349 random shape-correct sector proofs; then the
#   parameters are removed (the 64 GiB disk holds one such file) and the
#   SnapDeals 32 GiB parameters start the same way for run 3.
# Bundle: `cargo xtask gpu-bundle -p cuzk-spmv -p cuzk-groth16
# -p cuzk-scheduler --test gpu --test gpu_faults`.
. "$(dirname "$0")/lib.sh"
W=/tmp/s9
C=$W/cuzk
T gpu_faults 200 "$B/tests/cuzk-scheduler--gpu_faults" --include-ignored --test-threads 1 --nocapture

while ! grep -q '^rc=' $W/win_params.log 2>/dev/null && [ "$(left 330)" -gt 0 ]; do sleep 5; done
cp $W/win_params.log "$O/"
df -h /tmp >> "$O/log.txt"
if grep -q '^rc=0' $W/win_params.log; then
  rm -rf $W/r1cs $W/td8
  T bench_window32 $(( $(left 560) > 10 ? $(left 560) : 5 )) $C bench window-post --sector-size 32GiB \
    --param-cache $W/tdwin/params -j 2 --gw 2 --backend gpu --timeline "$O/timeline-window32.jsonl" --json
  rm -rf $W/tdwin
  setsid bash -c "$C testdata snap --sector-size 32GiB --params-only --generator cuzk-gpu \
    --dir $W/tdsnap > $W/snap_params.log 2>&1; echo rc=\$? >> $W/snap_params.log" < /dev/null > /dev/null 2>&1 &
  gzip -f "$O"/timeline-*.jsonl
fi
finish
