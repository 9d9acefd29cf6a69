#!/usr/bin/env bash
# Session 26: where a streamed 2^24 partition's kernels go under a 2 GiB
# limit (3.75 s against 0.8 s resident on the H100, with one bucket
# accumulator per pass): the bench circuit at 2^24, one proof of one
# partition at a time, with CUZK_MSM_PROFILE=1 (one line per chunk
# accumulation and per reduction: device ms per phase, host ms in
# cudaMallocAsync, wall ms). Packs $O/s26p.tgz.
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
mkdir -p $W && { [ -x $W/cuzk ] || cp "$B"/bin/* $W/; }
cd $W
T prof24-none 120 bash -c "CUZK_MSM_PROFILE=1 ./cuzk bench --log-size 24 -p 1 -j 2 --backend gpu --param-cache $W/params --json > $O/p24-none.json 2> $O/p24-none.err"
for L in ${LIMITS:-2GiB}; do
  T "prof24-$L" 150 bash -c "CUZK_MSM_PROFILE=1 ./cuzk bench --log-size 24 -p 1 -j 2 --backend gpu --param-cache $W/params --memory-limit $L --json > $O/p24-$L.json 2> $O/p24-$L.err"
done
mkdir -p $W/packp
cp "$O"/*.txt "$O"/*.json "$O"/*.err $W/packp/ 2>/dev/null
tar czf "$O/s26p.tgz" -C $W/packp .
rm -f "$O"/*.json "$O"/*.err
finish
