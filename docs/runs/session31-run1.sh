#!/usr/bin/env bash
# Planned, device call 1 of the next session. The bundle needs no
# `xtask gpu-bundle` build, only the sm_90 tarball and the scripts:
#   mkdir -p gpu-bundle-s31/dist
#   cp docs/runs/{lib.sh,session26-bench.sh,session26-poll.sh,session30-dist-unpack.sh,session31-run1.sh} gpu-bundle-s31/
#   cargo xtask dist --cuda --archs 90 && cp target/dist/*-cuda-sm90.tar.gz gpu-bundle-s31/dist/
# and carry gpu-bundle-s31. In the background: the 32 GiB test parameters
# (≈ 200 s), then 32 GiB PoRep at J = 8 under 16 GiB (tag l16GiB: the
# witness-buffer stall gone, ≈ 45 s/proof expected against 54.2; the
# report's witness_buffers.made should stay near the partitions in
# flight), the 32 GiB NI-PoRep bench to its end (tag ni, 126 partitions,
# ≈ 570 s), then J = 8 under ${LATER:-24GiB} (tags l24GiB, …); each
# bench with its mon-$TAG.log of memory pressure and GPU clocks. Packs
# at ~${UNTIL:-540} s; then, on the warm machine, `TAG=ni UNTIL=520 bash
# gpu-bundle-s31/session26-poll.sh` with a 600 s limit (UNTIL at least
# 40 s under the limit: packing takes that long), then TAG=l24GiB.
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
mkdir -p $W
. "$HERE/session30-dist-unpack.sh"
cp "$top/bin/cuzk" $W/
cd $W
export LATER=${LATER:-24GiB}
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=l16GiB LIMIT=16GiB J=8 bash $HERE/session26-bench.sh; TAG=ni LIMIT=none J=1 ARGS=--ni bash $HERE/session26-bench.sh; for L in \$LATER; do TAG=l\$L LIMIT=\$L J=8 bash $HERE/session26-bench.sh; done" < /dev/null > /dev/null 2>&1 &
TAG=l16GiB UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
