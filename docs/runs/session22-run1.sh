#!/usr/bin/env bash
# Device run 1 of session 22 (bundle gpu-bundle-s21, built at 34ad1d6 with
# the GPU code of HEAD, plus gpu-hog). In the background: the 32 GiB
# test parameters, then, once the GPU tests below are done, 32 GiB PoRep
# at J = 8 under a 16 GiB device memory limit (bases streamed) with a
# timeline. In the foreground: the groth16 and msm GPU tests (the
# streamed pass of 690c65d checked against the CPU for the first time)
# and the 2^24 bench parameters for run 3. Waits on the bench until the
# call's end; session22-poll.sh collects the rest.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s22
mkdir -p $W/p24 && cp "$B"/bin/* $W/
cd $W
setsid bash -c "./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; while [ ! -f $W/tests.done ]; do sleep 2; done; CUZK_R1CS_CACHE=$W/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $W/td32/params -j ${J:-8} -c 64 --gw 2 --backend gpu --memory-limit ${LIMIT:-16GiB} --timeline $W/tl32.jsonl --json > $W/b32.out 2> $W/b32.err; echo rc=\$? >> $W/b32.err" < /dev/null > /dev/null 2>&1 &
T groth16_gpu 220 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T msm_streamed 90 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
touch $W/tests.done
T setup24 150 $W/cuzk setup --log-size 24 --out $W/p24/bench-k24-setup0.params
. "$HERE/session22-collect.sh"
