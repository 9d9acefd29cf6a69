#!/usr/bin/env bash
# The device's hardware counters over a 32 GiB PoRep steady state (issue
# 34: the two GPU workers' overlap shown with busy SM time, not span
# union). In the foreground: `cuzk info` (its "Hardware counters" line)
# and cuzk-devmon's test on the GPU. In the background: the test
# parameters from the circuit's record (≈ 230 s), then `cuzk bench porep
# -j 8` resident (two GPU workers, counters read every 100 ms into the
# timeline and the report), stopped by SIGINT after ${TLIM:-480} s.
# Packs at ${UNTIL:-540} s; then, on the warm machine within 30 s:
# `TAG=p8 UNTIL=… bash gpu-bundle-s38/session26-poll.sh`.
. "$(dirname "$0")/session33-prep.sh"
T info 30 ./cuzk info
export CUZK_EXPECT_GPU=1
T devmon 60 "$(ls "$B"/tests/cuzk-devmon--start* | head -1)" --test-threads=1 --nocapture
L=${TLIM:-480}
setsid bash -c "CUZK_R1CS_CACHE=$W/r1cs ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=p8 LIMIT=none J=8 TLIM=$L bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=p8 UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
