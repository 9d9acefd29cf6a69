#!/usr/bin/env bash
# Device run 4 of session 18, on a fresh machine after run 3 was lost (the
# machine went back before it started): the groth16 GPU tests and the
# engine test again with the streamed minimum fixed (runs 1's failures),
# the 32 GiB parameters again, then the 32 GiB PoRep bench beside
# gpu-hog (all but 17 GiB held: a 16 GiB limit by default), J = 2 to fit
# the device time left: per-partition figures, not a steady state.
# Bundle gpu-bundle-r2: `cargo xtask gpu-bundle --out gpu-bundle-r2
# --no-extras -p cuzk-groth16 -p cuzk-scheduler --test gpu --test
# gpu_engine`, less scheduler's `gpu` test and xtask, plus gpu-hog.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s18
mkdir -p $W && cp "$B/bin/cuzk" "$B/bin/gpu-hog" $W/
T groth16_gpu 150 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T engine_gpu 90 "$(t cuzk-scheduler--gpu_engine)" --include-ignored --test-threads=1
T params32 300 $W/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32
PD=$W/td32/params
cd $W
setsid bash -c "./gpu-hog 17 > $W/hog.log 2>&1 & sleep 5; nvidia-smi --query-gpu=memory.used,memory.free --format=csv >> $W/hog.log; CUZK_R1CS_CACHE=$W/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $PD -j ${J:-2} -c 64 --gw 2 --backend gpu --timeline $W/timeline32.jsonl --json > $W/bench32.out 2> $W/bench32.err; echo rc=\$? >> $W/bench32.err; pkill gpu-hog" < /dev/null > /dev/null 2>&1 &
while ! grep -q '^rc=' $W/bench32.err 2>/dev/null; do
  [ "$(left 585)" -lt 0 ] && break
  sleep 5
done
cp $W/hog.log "$O/" 2>/dev/null
nvidia-smi >> "$O/log.txt" 2>&1
tail -c 100000 $W/bench32.err > "$O/bench32-sofar.err" 2>/dev/null
cp $W/bench32.out "$O/bench32.json" 2>/dev/null
finish
