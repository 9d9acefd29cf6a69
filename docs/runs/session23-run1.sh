#!/usr/bin/env bash
# Device run 1 of session 23 (bundle gpu-bundle-s23: the groth16 `gpu` and
# msm `gpu_device` tests, `cuzk` with cuda, sm_90). The session has one
# call's worth of device time (645 s), so this one call:
# - foreground: the groth16 GPU tests (the streamed pass, bases in pinned
#   host memory under a device memory limit, against the CPU's bytes) and
#   the msm streamed tests;
# - background: the 32 GiB test parameters (GPU generator, ~233 s), then,
#   once the tests are done, 32 GiB PoRep (random C1s, native witness) at
#   J = ${J:-1} under a ${LIMIT:-16GiB} device memory limit with a timeline.
# Collects whatever the bench has reached at ~470 s (the session had 645 s of device time).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s23
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; while [ ! -f $W/tests.done ]; do sleep 2; done; CUZK_R1CS_CACHE=$W/r1cs /usr/bin/time -v ./cuzk bench porep --sector-size 32GiB --param-cache $W/td32/params -j ${J:-1} -c 64 --gw 2 --backend gpu --memory-limit ${LIMIT:-16GiB} --timeline $W/tl32.jsonl --json > $W/b32.out 2> $W/b32.err; echo rc=\$? >> $W/b32.err" < /dev/null > /dev/null 2>&1 &
nvidia-smi -L >> "$O/log.txt" 2>&1
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T msm_streamed 90 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
touch $W/tests.done
while ! grep -q '^rc=' $W/b32.err 2>/dev/null; do
  [ "$(left 470)" -lt 0 ] && break
  sleep 5
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
cp $W/params.log "$O/" 2>/dev/null
tail -c 200000 $W/b32.err > "$O/b32.err" 2>/dev/null
cp $W/b32.out "$O/b32.json" 2>/dev/null
[ -f $W/tl32.jsonl ] && gzip -c $W/tl32.jsonl > "$O/tl32.jsonl.gz"
finish 2>/dev/null
