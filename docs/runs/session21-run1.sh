#!/usr/bin/env bash
# Device run 1 of session 21: the streamed pass of 690c65d (inputs staged
# on a copy stream two chunks ahead) on a GPU for the first time. The
# groth16 and msm GPU tests (the streamed ones check bytes against the
# CPU), then the 2^24 bench circuit resident and under memory limits that
# give 2^22 and smaller chunks, each with a timeline (session19_tl.py).
# Bundle gpu-bundle-s21: `cargo xtask gpu-bundle --out gpu-bundle-s21
# -p cuzk-groth16 -p cuzk-msm --test gpu --test gpu_device`, less xtask.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s21
P=$W/p24
mkdir -p $W $P && cp "$B"/bin/* $W/
T groth16_gpu 200 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T msm_streamed 60 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
T setup24 120 $W/cuzk setup --log-size 24 --out $P/bench-k24-setup0.params
T info_3GiB 30 $W/cuzk info --params $P/bench-k24-setup0.params --memory-limit 3GiB
bench() {
  local name=$1; shift
  T "$name" "$(left 560)" $W/cuzk bench --log-size 24 -p 2 -j 8 -c 16 --param-cache $P --backend gpu \
    --timeline "$O/tl-$name.jsonl" --json "$@"
}
bench res_gw1 --gw 1
bench lim7_gw1 --gw 1 --memory-limit 7GiB
bench lim3_gw1 --gw 1 --memory-limit 3GiB
grep -a '^{' "$O/log.txt" > "$O/results.jsonl"
gzip -f "$O"/tl-*.jsonl
finish
