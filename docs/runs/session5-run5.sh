#!/usr/bin/env bash
# Device run 5 of session 5 (2026-12-01): the GPU tests session 4 left
# pending (stager, staged/profiled H step) and, now that the engine holds
# no lock around the backend, whether gw = 2 helps at 2^24
# (`cuzk bench --log-size 24 -p 1 -j 12 -c 16 --gw 1|2`).
# Bundle: `cargo xtask gpu-bundle -p cuzk-pinned-mem -p cuzk-ntt --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { echo "$B/tests/$1"; }
T stager_test 60 "$(t cuzk-pinned-mem--stager_gpu)" --include-ignored --test-threads=1
T ntt_h_step 120 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 h_step
export CUZK_PARAM_CACHE=/tmp/s5p; mkdir -p /tmp/s5p
T setup24 120 "$B/bin/cuzk" setup --log-size 24 --out /tmp/s5p/bench-k24-setup0.params
for gw in 1 2; do
  T "bench24_gw$gw" 150 "$B/bin/cuzk" bench --log-size 24 -p 1 -j 12 -c 16 --gw "$gw" --backend gpu --json
done
grep -a '^{' "$O/log.txt" > "$O/bench24.jsonl"
finish
