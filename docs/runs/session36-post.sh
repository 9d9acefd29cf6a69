#!/usr/bin/env bash
# Issue 35's last figures, on a machine of its own (the 64 GiB disk holds
# one 32 GiB parameter file at a time). In the background, in this order:
# - groth16's GPU tests (tests/gpu: GPU == CPU proof bytes, resident and
#   streamed under a memory limit; the lib's `gpu_` tests), alone on the
#   device, into $W/g16.log;
# - the WindowPoSt test parameters (≈ 150 s, the record on all cores);
# - `cuzk bench window-post -j 1`: one partition alone, submit → proof
#   (target ≤ 25 s; 29.6 s on an H100 before the gathered tails' plans
#   went to all cores and the streamed classification beside the H step);
# - `cuzk bench window-post -j 2` (the session-35 shape, to compare);
# - the parameters removed, the SnapDeals ones made (≈ 100 s);
# - `cuzk bench snap -j 1 --witness check`: the native witness against
#   the generic one, value for value, in all 16 partitions at 32 GiB (a
#   mismatch fails the job, so the bench's rc and errors say).
# Packs at ${UNTIL:-540} s; then, on the warm machine within 30 s:
# `TAG=snapc UNTIL=… bash gpu-bundle-s36/session26-poll.sh`.
# Bundle gpu-bundle-s36: the sm_90 tarball in dist/, tests/ from `cargo
# xtask gpu-bundle -p cuzk-groth16 --test gpu` and `… --test cuzk_groth16`.
. "$(dirname "$0")/session33-prep.sh"
B1="BENCH=window-post PDIR=$W/tdwin/params R1CS=/dev/shm/r1cs"
B2="BENCH=snap PDIR=$W/tdsnap/params R1CS=/dev/shm/r1cs J=1"
g16=$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)
lib=$(ls "$B"/tests/cuzk-groth16--cuzk_groth16* | head -1)
setsid bash -c "
(CUZK_EXPECT_GPU=1 timeout 300 $g16 --include-ignored --test-threads=1; echo gpu_rc=\$?; CUZK_EXPECT_GPU=1 timeout 200 $lib --include-ignored --test-threads=1 gpu_; echo lib_rc=\$?) > $W/g16.log 2>&1
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdwin > $W/params.log 2>&1; echo win_params_rc=\$? >> $W/params.log
$B1 J=1 TAG=win1 LIMIT=none bash $HERE/session26-bench.sh
$B1 J=2 TAG=winr LIMIT=none bash $HERE/session26-bench.sh
rm -rf $W/tdwin /dev/shm/r1cs/*
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata snap --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdsnap >> $W/params.log 2>&1; echo snap_params_rc=\$? >> $W/params.log
$B2 TAG=snapc LIMIT=none ARGS='--witness check' bash $HERE/session26-bench.sh
" < /dev/null > /dev/null 2>&1 &
TAG=winr UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
