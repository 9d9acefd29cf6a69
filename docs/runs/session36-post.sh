#!/usr/bin/env bash
# Issue 35's last figures, on a machine of its own (the 64 GiB disk holds
# one 32 GiB parameter file at a time). In the background, in this order:
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
. "$(dirname "$0")/session33-prep.sh"
B1="BENCH=window-post PDIR=$W/tdwin/params R1CS=/dev/shm/r1cs"
B2="BENCH=snap PDIR=$W/tdsnap/params R1CS=/dev/shm/r1cs J=1"
setsid bash -c "
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdwin > $W/params.log 2>&1; echo win_params_rc=\$? >> $W/params.log
$B1 J=1 TAG=win1 LIMIT=none bash $HERE/session26-bench.sh
$B1 J=2 TAG=winr LIMIT=none bash $HERE/session26-bench.sh
rm -rf $W/tdwin /dev/shm/r1cs/*
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata snap --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdsnap >> $W/params.log 2>&1; echo snap_params_rc=\$? >> $W/params.log
$B2 TAG=snapc LIMIT=none ARGS='--witness check' bash $HERE/session26-bench.sh
" < /dev/null > /dev/null 2>&1 &
TAG=winr UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
