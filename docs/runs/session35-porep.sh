#!/usr/bin/env bash
# 32 GiB PoRep with the partitions' MSM working sets in the host budget
# (a resident set reserves them per pipeline slot): does the steady state
# keep its pace? In the background: the test parameters from the
# circuit's record (≈ 200 s), then `cuzk bench porep -j 8` resident and
# under a 32 GiB device limit (issue 33's last limit), each stopped by
# SIGINT after ${TLIM:-190} s, for the timeline's steady partition period.
# Packs at ${UNTIL:-540} s; then, on the warm machine within 30 s:
# `TAG=l32 UNTIL=… bash gpu-bundle-s35/session26-poll.sh`.
. "$(dirname "$0")/session33-prep.sh"
L=${TLIM:-190}
setsid bash -c "CUZK_R1CS_CACHE=$W/r1cs ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=r8 LIMIT=none J=8 TLIM=$L bash $HERE/session26-bench.sh; TAG=l32 LIMIT=32GiB J=8 TLIM=$L bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=r8 UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
