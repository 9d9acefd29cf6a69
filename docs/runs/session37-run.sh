#!/usr/bin/env bash
# The streamed passes' plans without copies, on the device. In the
# background, in this order:
# - msm's streamed GPU test (each op kind alone and all in one pass,
#   gathers unsorted and ascending, chunks from the whole set to 4096
#   bases: GPU == CPU), then groth16's GPU tests (GPU == CPU proof bytes,
#   resident and streamed under a memory limit), into $W/g16.log;
# - the WindowPoSt 32 GiB test parameters (≈ 150 s, the record on all
#   cores);
# - `cuzk bench window-post -j 1`: one partition alone, submit → proof
#   (23.1 s on an H100 with 0.9–1.1 s of plan before each of 4 passes);
# - `cuzk bench window-post -j 2`.
# Packs at ${UNTIL:-540} s. Bundle: the sm_90 tarball in dist/, tests/
# from `cargo xtask gpu-bundle -p cuzk-msm --test gpu_device` and `-p
# cuzk-groth16 --test gpu`.
. "$(dirname "$0")/session33-prep.sh"
B1="BENCH=window-post PDIR=$W/tdwin/params R1CS=/dev/shm/r1cs"
msm=$(ls "$B"/tests/cuzk-msm--gpu_device* | head -1)
g16=$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)
setsid bash -c "
(CUZK_EXPECT_GPU=1 timeout 200 $msm --include-ignored --test-threads=1 streamed; echo msm_rc=\$?; CUZK_EXPECT_GPU=1 timeout 300 $g16 --include-ignored --test-threads=1; echo gpu_rc=\$?) > $W/g16.log 2>&1
CUZK_R1CS_CACHE=/dev/shm/r1cs ./cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/tdwin > $W/params.log 2>&1; echo win_params_rc=\$? >> $W/params.log
$B1 J=1 TAG=win1 LIMIT=none bash $HERE/session26-bench.sh
$B1 J=2 TAG=winr LIMIT=none bash $HERE/session26-bench.sh
" < /dev/null > /dev/null 2>&1 &
TAG=winr UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
