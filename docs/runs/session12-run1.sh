#!/usr/bin/env bash
# Device run 1 of session 12 (2026-12-02). Issue 18, the H step: the NTT
# pass kernel with radix-4 register steps (two levels per shared-memory
# exchange) and a direct ω_{2^18} table for the fused twiddles of
# sub-problems ≤ 2^18, against the previous kernel (base--, built from
# 63d698d): tests, the gpu_ntt bench of both, ncu on the three passes of
# one 2^24 transform of both. Then the side by side at 2^24 (sha circuit):
# supraseal-c2 alone in its own process first, then both sides.
# Carried: `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-ntt -p
# cuzk-groth16 --test gpu --bench gpu_ntt --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
NCU=/usr/local/cuda/bin/ncu
t() { ls "$B"/tests/"$1"* | head -1; }
T ntt_gpu 150 "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 --skip spot_sizes
T bench_new 150 env CUZK_BENCH_OUT="$O/ntt_new.csv" "$B/benches/cuzk-ntt--gpu_ntt"
T bench_base 150 env CUZK_BENCH_OUT="$O/ntt_base.csv" "$B/benches/base--cuzk-ntt--gpu_ntt"
for v in new base; do
  exe="$B/benches/cuzk-ntt--gpu_ntt"; [ $v = base ] && exe="$B/benches/base--cuzk-ntt--gpu_ntt"
  T ncu_$v 200 $NCU --kernel-name regex:pass_kernel --launch-skip 28 --launch-count 3 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    --csv --page details --log-file "$O/ncu_$v.csv" "$exe"
done
T groth16_gpu 200 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
mkdir -p /tmp/anchor
T anchor_sup24 "$(left 430)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 2 --warmup 1 --sides supraseal --params-dir /tmp/anchor --json "$O/anchor_sup24.json"
T anchor_both24 "$(left 540)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 2 --warmup 1 --params-dir /tmp/anchor --json "$O/anchor_both24.json"
T ntt_spot "$(left 585)" "$(t cuzk-ntt--gpu)" --include-ignored --test-threads=1 spot_sizes
finish
