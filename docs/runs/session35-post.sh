#!/usr/bin/env bash
# WindowPoSt and SnapDeals at 32 GiB (issues 33 and 35), on a machine of
# its own: the 64 GiB disk holds one such parameter file at a time
# (WindowPoSt 56.6 GiB) and not its record beside it (that goes to
# /dev/shm), so each set is made, benched and removed in turn.
# In the background, in this order:
# - the WindowPoSt test parameters (GPU generator, from the circuit's
#   record, recorded sector by sector on all cores; the benches then load
#   it from /dev/shm/r1cs);
# - `cuzk bench window-post -j 2` resident (submit → proof per
#   partition), then under a 16 GiB limit, both with the partitions' MSM
#   splits in the budget;
# - the parameters removed (the record kept in /tmp/s32/r1cs for
#   session34-run3.sh); the SnapDeals ones made;
# - `cuzk bench snap -j 1` under 16 GiB, then resident.
# Packs at ${UNTIL:-540} s; later calls on the warm machine poll the last
# bench: `TAG=snapr UNTIL=540 bash gpu-bundle-s35/session26-poll.sh`.
# Bundle gpu-bundle-s35: the sm_90 tarball in dist/.
. "$(dirname "$0")/session33-prep.sh"
B1="BENCH=window-post PDIR=$W/tdwin/params R1CS=/dev/shm/r1cs J=2"
B2="BENCH=snap PDIR=$W/tdsnap/params R1CS=/dev/shm/r1cs J=1"
setsid bash -c "
CUZK_R1CS_CACHE=/dev/shm/r1cs /usr/bin/time -v ./cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdwin > $W/params.log 2>&1; echo win_params_rc=\$? >> $W/params.log
$B1 TAG=winr LIMIT=none bash $HERE/session26-bench.sh
$B1 TAG=win16 LIMIT=16GiB bash $HERE/session26-bench.sh
rm -rf $W/tdwin; mkdir -p /tmp/s32/r1cs; mv /dev/shm/r1cs/* /tmp/s32/r1cs/
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata snap --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdsnap >> $W/params.log 2>&1; echo snap_params_rc=\$? >> $W/params.log
$B2 TAG=snap16 LIMIT=16GiB bash $HERE/session26-bench.sh
$B2 TAG=snapr LIMIT=none bash $HERE/session26-bench.sh
" < /dev/null > /dev/null 2>&1 &
TAG=win16 UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
