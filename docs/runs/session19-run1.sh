#!/usr/bin/env bash
# Device run 1 of session 19: where a streamed partition's time goes.
# The 2^24 bench circuit resident and
# streamed under memory limits that give 2^22 and smaller chunks, each
# with a timeline (the pass's parts are spans beside its stage: plan,
# host enqueue, uploads, kernels), then the groth16 GPU tests.
# Bundle gpu-bundle-r1: `cargo xtask gpu-bundle --out gpu-bundle-r1
# --no-extras -p cuzk-groth16 --test gpu`, less xtask.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
W=/tmp/s19
P=$W/p24
mkdir -p $W $P && cp "$B/bin/cuzk" $W/
T setup24 150 $W/cuzk setup --log-size 24 --out $P/bench-k24-setup0.params
for lim in 7GiB 3GiB; do
  T "info_$lim" 60 $W/cuzk info --params $P/bench-k24-setup0.params --memory-limit $lim
done
# name, then extra flags
bench() {
  local name=$1; shift
  T "$name" 150 $W/cuzk bench --log-size 24 -p 2 -j 8 -c 16 --param-cache $P --backend gpu \
    --timeline "$O/tl-$name.jsonl" --json "$@"
}
bench res_gw1 --gw 1
bench lim7_gw1 --gw 1 --memory-limit 7GiB
bench lim3_gw1 --gw 1 --memory-limit 3GiB
bench lim7_gw2 --gw 2 --memory-limit 7GiB
grep -a '^{' "$O/log.txt" > "$O/results.jsonl"
T groth16_gpu "$(left 570)" "$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)" --include-ignored --test-threads=1
gzip -f "$O"/tl-*.jsonl
finish
