#!/usr/bin/env bash
# Issue 34's first-proof cost: the placement's warm-up A/B. In the
# background, in this order:
# - groth16's GPU tests (GPU == CPU proof bytes, resident and streamed;
#   every placement now warms up) into $W/g16.log;
# - the 32 GiB SnapDeals test parameters (≈ 100 s; the set is resident
#   on an 80 GB card, so the warm-up is the full-size H step and H MSM);
# - `cuzk bench snap -j 1` with CUZK_WARMUP=0 (tag cold), then with the
#   warm-up (tag warm): each a fresh process, so the cold one's first
#   partitions pay the kernels' lazy loading and the pool's first mapping.
# Packs at ${UNTIL:-540} s; on the warm machine within 30 s:
# `TAG=warm UNTIL=… bash gpu-bundle-s36w/session26-poll.sh`.
# Bundle gpu-bundle-s36w: the sm_90 tarball in dist/, tests/ from `cargo
# xtask gpu-bundle -p cuzk-groth16 --test gpu`.
. "$(dirname "$0")/session33-prep.sh"
B2="BENCH=snap PDIR=$W/tdsnap/params R1CS=/dev/shm/r1cs J=1 LIMIT=none"
g16=$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)
setsid bash -c "
(CUZK_EXPECT_GPU=1 timeout 300 $g16 --include-ignored --test-threads=1; echo gpu_rc=\$?) > $W/g16.log 2>&1
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata snap --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdsnap > $W/params.log 2>&1; echo snap_params_rc=\$? >> $W/params.log
CUZK_WARMUP=0 $B2 TAG=cold bash $HERE/session26-bench.sh
$B2 TAG=warm bash $HERE/session26-bench.sh
" < /dev/null > /dev/null 2>&1 &
TAG=warm UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
