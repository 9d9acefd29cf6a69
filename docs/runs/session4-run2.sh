#!/usr/bin/env bash
# Device run 2 of session 4 (2026-11-30): pipelined batches (the H step
# outside the device lock, prove_batch with two partitions in flight), the
# H path on a plain thread and the stager's own copy threads: GPU tests of
# pinned-mem and groth16 (pipelined batch == CPU, proofs verified by
# bellperson), `cuzk prove --timings` at 2^24 (stager threads 8 vs 16),
# then the anchor at 2^22 and 2^24 (batch 10) against supraseal-c2.
# Bundle: `cargo xtask gpu-bundle -p cuzk-pinned-mem -p cuzk-groth16 --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { echo "$B/tests/$1"; }
T stager_test 30 "$(t cuzk-pinned-mem--stager_gpu)" --include-ignored --test-threads=1
T groth16_gpu 200 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
mkdir -p /tmp/pc /tmp/anchor
T setup24 90 "$B/bin/cuzk" setup --log-size 24 --out /tmp/pc/k24.params
P="$B/bin/cuzk prove --log-size 24 --params /tmp/pc/k24.params --count 4 --timings --backend gpu --out /tmp/pc/p.bin"
T prove24 90 $P
T prove24_threads16 90 env CUZK_H_STAGE=4,16,16 $P
ln -sf /tmp/pc/k24.params /tmp/anchor/bench-24.params
T anchor "$(left 585)" "$B/bin/cuzk-anchor" --sizes 24,22 --batch 10 --params-dir /tmp/anchor --json "$O/anchor.json"
finish
