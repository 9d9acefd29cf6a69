#!/usr/bin/env bash
# Device call 1 (bundle gpu-bundle-s33: the sm_90 tarball in dist/,
# bin/{cuzk-porep-synth,cuzk-post-synth}.xz, these scripts). In the
# background: the 32 GiB test parameters from the circuit's record, which
# they leave in $W/r1cs for the benches (≈ 200 s); the 32 GiB NI-PoRep
# bench to its end (issue 36, 126 partitions, ≈ 570 s; in session 30 its
# stages slowed 10–35× from partition 64, so mon-ni.log samples the host
# and the GPU); then 32 GiB PoRep at J = 8 under a 24 GiB limit for 230 s,
# stopped by SIGINT, for its steady partition period (issue 33). Packs at ${UNTIL:-540} s. Then, on
# the warm machine within 30 s: `UNTIL=540 bash
# gpu-bundle-s33/session33-run2.sh`.
. "$(dirname "$0")/session33-prep.sh"
setsid bash -c "CUZK_R1CS_CACHE=$W/r1cs /usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; TAG=ni LIMIT=none J=1 ARGS=--ni bash $HERE/session26-bench.sh; TAG=l24GiB LIMIT=24GiB J=8 TLIM=230 bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=ni UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
