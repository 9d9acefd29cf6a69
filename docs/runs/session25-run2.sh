#!/usr/bin/env bash
# Session 25, the one device call left (~420 s): the streamed pass with one
# bucket accumulator per pass, checked and timed without the 32 GiB setup.
# - the msm streamed tests and the groth16 GPU tests (streamed bytes =
#   resident bytes for fixed r, s);
# - the 2^24 bench circuit resident, under 2 GiB and under 6 GiB
#   (session25-stream.sh; the same runs before the change are in
#   docs/runs/2026-12-05-session25.md; LIMITS picks them);
# - time allowing, 2^26 resident and under 8 GiB.
# Everything is packed into $O/s25.tgz.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s25
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
T msm_streamed 120 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
T groth16_gpu 150 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
LIMITS=${LIMITS:-none 2GiB 6GiB} . "$HERE/session25-stream.sh"
for L in none 8GiB; do
  [ "$(left ${UNTIL:-400})" -lt 100 ] && break
  lim=(--memory-limit "$L"); [ "$L" = none ] && lim=()
  T "bench26-$L" "$(left ${UNTIL:-400})" bash -c "./cuzk bench --log-size 26 -p 1 -j 3 --backend gpu --param-cache $W/params ${lim[*]} --json > $O/b26-$L.json 2> $O/b26-$L.err"
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
mkdir -p $W/pack
cp "$O"/*.txt "$O"/*.json "$O"/*.err "$O"/*.jsonl $W/pack/ 2>/dev/null
tar czf "$O/s25.tgz" -C $W/pack .
rm -f "$O"/*.json "$O"/*.err "$O"/*.jsonl
finish
