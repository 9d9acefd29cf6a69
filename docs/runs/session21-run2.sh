#!/usr/bin/env bash
# Device run 2 of session 21: 32 GiB PoRep, J = 8, under a 16 GiB device
# memory limit (streamed bases). Makes the 32 GiB parameters (≈ 240 s),
# starts the bench in the background with a timeline and waits up to the
# call's end; session21-poll.sh, called within 30 s, waits on and
# collects it. Bundle gpu-bundle-s21 (see session21-run1.sh).
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
W=/tmp/s21
mkdir -p $W && cp "$B"/bin/* $W/
T params32 320 $W/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32
cd $W
setsid bash -c "CUZK_R1CS_CACHE=$W/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $W/td32/params -j ${J:-8} -c 64 --gw 2 --backend gpu --memory-limit ${LIMIT:-16GiB} --timeline $W/tl32.jsonl --json > $W/b32.out 2> $W/b32.err; echo rc=\$? >> $W/b32.err" < /dev/null > /dev/null 2>&1 &
. "$HERE/session21-collect.sh"
