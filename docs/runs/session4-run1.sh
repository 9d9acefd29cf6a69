#!/usr/bin/env bash
# Device run 1 of session 4 (2026-11-30): (1) the staged H-step uploads
# (cuzk_pinned_mem::Stager + a copy stream) and the transient set whose
# host queries are page-locked once, through the GPU tests of pinned-mem,
# ntt (H step) and groth16 (GPU == CPU, bellperson verifies, stage names);
# (2) `cuzk prove --timings` at 2^24 with the split stages: staged ring
# shapes vs the direct path (register + copy); (3) the anchor at 2^24
# (batch 10) against bellperson + supraseal-c2; (4) the 2^26 GPU setup.
# Bundle: `cargo xtask gpu-bundle -p cuzk-pinned-mem -p cuzk-ntt -p cuzk-groth16 --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { echo "$B/tests/$1"; }
T stager_test 30 "$(t cuzk-pinned-mem--stager_gpu)" --include-ignored --test-threads=1
T ntt_h_step 90 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 h_step
T groth16_gpu 200 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T groth16_direct 120 env CUZK_H_UPLOAD=direct "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1 gpu_matches
mkdir -p /tmp/pc /tmp/anchor
T setup24 90 "$B/bin/cuzk" setup --log-size 24 --out /tmp/pc/k24.params
P="$B/bin/cuzk prove --log-size 24 --params /tmp/pc/k24.params --count 2 --timings --backend gpu --out /tmp/pc/p.bin"
T prove24_staged 90 $P
T prove24_direct 90 env CUZK_H_UPLOAD=direct $P
for shape in 8,8 2,64; do
  T "prove24_stage_$shape" 90 env CUZK_H_STAGE=$shape $P
done
T prove24_transient 120 $P --residency transient
ln -sf /tmp/pc/k24.params /tmp/anchor/bench-24.params
T anchor24 "$(left 560)" "$B/bin/cuzk-anchor" --sizes 24 --batch 10 --params-dir /tmp/anchor --json "$O/anchor24.json"
rm -f /tmp/pc/k24.params /tmp/anchor/bench-24.params
[ "$(left 580)" -gt 150 ] && T setup26 "$(left 585)" "$B/bin/cuzk" setup --log-size 26 --out /tmp/pc/k26.params
finish
