#!/usr/bin/env bash
# WindowPoSt 32 GiB on a small card's budget: `--memory-limit 16GiB`
# (the recorded matrices then stay on the CPU, the set streams through
# smaller chunks). In the background: the test parameters (≈ 210 s),
# `cuzk bench window-post -j 1` then `-j 2`, both under the limit
# (37.1 s alone before the streamed plans stopped copying the tails).
# Packs at ${UNTIL:-540} s. Bundle as session37-run.sh's.
. "$(dirname "$0")/session33-prep.sh"
B1="BENCH=window-post PDIR=$W/tdwin/params R1CS=/dev/shm/r1cs LIMIT=16GiB"
setsid bash -c "
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdwin > $W/params.log 2>&1; echo win_params_rc=\$? >> $W/params.log
$B1 J=1 TAG=s16 bash $HERE/session26-bench.sh
$B1 J=2 TAG=s16r bash $HERE/session26-bench.sh
" < /dev/null > /dev/null 2>&1 &
TAG=s16r UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
