#!/usr/bin/env bash
# Session 26, last device call (~200 s of budget): the time-shared streamed
# placement (the H step's buffers and the MSM scratch freed between a
# partition's phases, so the chunks take the room the H step leaves).
# - the groth16 GPU tests (streamed proofs = resident proofs for fixed
#   r, s, under limits) and the msm streamed test;
# - the 2^24 bench circuit under a 2 GiB limit, as session26-run1.sh ran it
#   before the change (`cuzk bench --log-size 24 -p 2 -j 4 --backend gpu
#   --memory-limit 2GiB`), then 6 GiB if time is left.
# Packs $O/s26c.tgz.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s26
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
T groth16_gpu 100 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T msm_streamed 30 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
for L in 2GiB 6GiB; do
  [ "$(left ${UNTIL:-170})" -lt 30 ] && break
  T "bench24-$L" "$(left ${UNTIL:-170})" bash -c "./cuzk bench --log-size 24 -p 2 -j 4 --backend gpu --param-cache $W/params --memory-limit $L --json > $O/c24-$L.json 2> $O/c24-$L.err"
done
mkdir -p $W/packc
cp "$O"/*.txt "$O"/*.json "$O"/*.err $W/packc/ 2>/dev/null
tar czf "$O/s26c.tgz" -C $W/packc .
rm -f "$O"/*.json "$O"/*.err
finish
