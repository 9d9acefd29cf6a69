#!/usr/bin/env bash
# Device run 1 of session 17 (2026-12-03). Issues 32/33: typed
# out-of-memory from the runtime up (gpu runtime, scheduler gpu_faults),
# streamed bases against the CPU MSM (msm gpu_device), the GPU backend
# with and without a device memory limit (groth16 gpu: same results,
# DeviceTooSmall at placement), the engine with deferred partitions whose
# witnesses go up by DMA from the page-locked pool (scheduler gpu_engine:
# CPU engine's proof bytes), 2 KiB PoRep C2 through verify_seal resident
# and with --memory-limit 160MiB (streamed); then the 32 GiB PoRep test
# parameters in the background for run 2.
# Bundle: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-gpu -p cuzk-msm
# -p cuzk-groth16 -p cuzk-scheduler --test gpu --test gpu_device --test
# gpu_faults --test gpu_engine --test runtime --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
CUZK=$B/bin/cuzk
mkdir -p /tmp/s17 && cp "$CUZK" /tmp/s17/cuzk
T gpu_runtime 60 "$(t cuzk-gpu--runtime)" --include-ignored --test-threads=1
T msm_streamed 150 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T engine_gpu 120 "$(t cuzk-scheduler--gpu_engine)" --include-ignored --test-threads=1
T faults_gpu 120 "$(t cuzk-scheduler--gpu_faults)" --include-ignored --test-threads=1
T testdata_2k "$(left 560)" /tmp/s17/cuzk testdata porep --sector-size 2KiB --generator cuzk-gpu --dir /tmp/s17/td2
RUN=$(grep -a '^run: ' "$O/log.txt" | tail -1)
C1=$(echo "$RUN" | sed -E 's/.*--c1 ([^ ]+).*/\1/')
PID=$(echo "$RUN" | sed -E 's/.*--prover-id ([^ ]+).*/\1/')
SID=$(echo "$RUN" | sed -E 's/.*--sector-id ([^ ]+).*/\1/')
PD=$(echo "$RUN" | sed -E 's/.*--param-cache ([^ ]+).*/\1/')
export CUZK_R1CS_CACHE=/tmp/s17/r1cs
for mode in resident limit; do
  extra=""; [ $mode = limit ] && extra="--memory-limit 160MiB"
  T "porep_2k_$mode" 120 /tmp/s17/cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$PD" --out /tmp/s17/$mode.proof --backend gpu $extra
  T "verify_2k_$mode" 60 /tmp/s17/cuzk verify porep --c1 "$C1" --proof /tmp/s17/$mode.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$PD"
done
rm -rf /tmp/s17/td2
setsid bash -c "cd /tmp/s17 && ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s17/td32 > /tmp/s17/params32.log 2>&1; echo rc=\$? >> /tmp/s17/params32.log" < /dev/null > /dev/null 2>&1 &
finish
