#!/usr/bin/env bash
# Device call 1 of session 32 (bundle gpu-bundle-s32: the sm_90 tarball in
# dist/, the two gpu_msm benches in benches/, these scripts; how to make
# it is in the session 31 run log). In the background: the 32 GiB test
# parameters (≈ 200 s), then the 32 GiB NI-PoRep bench to its end
# (issue 36, 126 partitions, ≈ 570 s; in session 30 its stages slowed
# 10–35× from partition 64, so mon-ni.log samples the host and the GPU).
# Packs at ${UNTIL:-540} s. Call 2 (session32-run2.sh, on the warm
# machine) waits for the NI bench, then runs issue 34's backward-pass A/B.
# Device time was short (failed starts): the 24 and 32 GiB limit runs of
# issue 33 wait for another session.
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
mkdir -p $W
. "$HERE/session30-dist-unpack.sh"
cp "$top/bin/cuzk" $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=ni LIMIT=none J=1 ARGS=--ni bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=ni UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
