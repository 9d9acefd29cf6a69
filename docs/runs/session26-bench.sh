#!/usr/bin/env bash
# Session 26: one 32 GiB PoRep bench (random C1s, native witness, J =
# $J, c = 64, two GPU workers) against the parameters in /tmp/s26/td32,
# under device memory limit $LIMIT ("none": the card's free memory less
# the margin), beside gpu-hog holding all but $HOG GiB when HOG is set.
# BENCH (default porep) picks `cuzk bench window-post|snap|…` instead,
# PDIR (default /tmp/s26/td32/params) its parameter directory, and R1CS
# (default /tmp/s26/r1cs) where the recorded circuit is cached.
# Writes /tmp/s26/b32-$TAG.{json,err} and tl32-$TAG.jsonl; the .err ends
# with "rc=N". $ARGS, when set, is added to the bench's command line
# (e.g. "--ni"). Beside the bench, mon-$TAG.log samples every 5 s the
# host's memory (vmstat, /proc/pressure/memory) and the GPU's clocks,
# throttle reasons, power and memory: a run whose stages slowed 10–80×
# part-way (2026-12-06, NI bench) left no way to tell which.
W=/tmp/s26
cd $W
lim=(--memory-limit "$LIMIT"); [ "$LIMIT" = none ] && lim=()
if [ -n "${HOG:-}" ]; then
  ./gpu-hog "$HOG" > $W/hog-$TAG.log 2>&1 & sleep 5
  nvidia-smi --query-gpu=memory.used,memory.free --format=csv >> $W/hog-$TAG.log
fi
( while :; do date +%s; cat /proc/pressure/memory 2>/dev/null; vmstat -w 1 2 | tail -1; nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active,memory.used,utilization.gpu --format=csv,noheader; sleep 5; done > $W/mon-$TAG.log 2>&1 ) &
MON=$!
tl=(); [ -n "${TLIM:-}" ] && tl=(timeout -s INT "$TLIM")
CUZK_R1CS_CACHE=${R1CS:-$W/r1cs} /usr/bin/time -v "${tl[@]}" ./cuzk bench "${BENCH:-porep}" --sector-size 32GiB --param-cache "${PDIR:-$W/td32/params}" -j "$J" -c 64 --gw 2 --backend gpu "${lim[@]}" ${ARGS:-} --timeline $W/tl32-$TAG.jsonl --json > $W/b32-$TAG.json 2> $W/b32-$TAG.err
echo rc=$? >> $W/b32-$TAG.err
kill $MON
[ -n "${HOG:-}" ] && pkill gpu-hog
true
