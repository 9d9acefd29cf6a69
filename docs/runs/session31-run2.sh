#!/usr/bin/env bash
# Device call 2 of session 31 (2026-12-06), on a fresh machine with
# ~870 s of budget: the 32 GiB test parameters (≈ 200 s), then 32 GiB
# PoRep at J = 8 under a 24 GiB limit for ${T24:-230} s (the first
# bench also records the circuit, 99 s), then under 32 GiB until the
# call packs at ${UNTIL:-540} s. Each bench is stopped by SIGINT: what
# is wanted is the steady partition period from its timeline, since a
# full J = 8 bench (≈ 500 s) does not fit beside the parameters.
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
mkdir -p $W
. "$HERE/session30-dist-unpack.sh"
cp "$top/bin/cuzk" $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=l24GiB LIMIT=24GiB J=8 TLIM=${T24:-230} bash $HERE/session26-bench.sh; sleep 3; TAG=l32GiB LIMIT=32GiB J=8 bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=l32GiB UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
