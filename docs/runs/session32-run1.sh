#!/usr/bin/env bash
# Planned, device call 1 of the next session (bundle gpu-bundle-s32: the
# sm_90 tarball in dist/, the two gpu_msm benches in benches/, these
# scripts; how to make it is in the session 31 run log). In the
# foreground, issue 34's A/B of the affine rounds' backward pass
# (session31-msm.sh, G1 2^24 − 1 and 2^27 − 1, new against old, ≈ 150 s).
# Then in the background: the 32 GiB test parameters (≈ 200 s); 32 GiB
# PoRep at J = 8 under 24 GiB for 260 s (it records the circuit first,
# 99 s) and under 32 GiB for 200 s, each stopped by SIGINT for its steady
# partition period (issue 33); the 32 GiB NI-PoRep bench to its end
# (issue 36, 126 partitions, ≈ 570 s). Packs at ${UNTIL:-540} s. Then,
# on the warm machine: `TAG=l32GiB UNTIL=520 bash
# gpu-bundle-s32/session26-poll.sh`, then `TAG=ni` the same way (UNTIL
# at least 40 s under the call's limit: packing takes that long).
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
mkdir -p $W
UNTIL=150 bash "$HERE/session31-msm.sh" > /dev/null 2>&1
. "$HERE/session30-dist-unpack.sh"
cp "$top/bin/cuzk" $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=l24GiB LIMIT=24GiB J=8 TLIM=260 bash $HERE/session26-bench.sh; TAG=l32GiB LIMIT=32GiB J=8 TLIM=200 bash $HERE/session26-bench.sh; TAG=ni LIMIT=none J=1 ARGS=--ni bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=l24GiB UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
