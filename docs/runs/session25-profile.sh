#!/usr/bin/env bash
# Session 25, call 2: where a streamed chunk's kernel time goes. The
# bench circuit at 2^24, one partition at a time, under each of
# ${LIMITS:-none 2GiB 6GiB} with CUZK_MSM_PROFILE=1: every MSM prints its
# device time per phase (sort, level0, levels, reduce), the host's time
# in cudaMallocAsync and its wall time. The profile waits for each MSM,
# so the pass is serialised: compare per-MSM device times, not walls.
. "$(dirname "$0")/lib.sh"
W=/tmp/s25
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
for L in ${LIMITS:-none 2GiB 6GiB}; do
  lim=(--memory-limit "$L"); [ "$L" = none ] && lim=()
  T "prof24-$L" 150 bash -c "CUZK_MSM_PROFILE=1 ./cuzk bench --log-size 24 -p 1 -j 2 --gw 1 --backend gpu --param-cache $W/params ${lim[*]} --json > $O/p24-$L.json 2> $O/p24-$L.err"
done
finish
