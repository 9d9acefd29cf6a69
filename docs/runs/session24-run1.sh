#!/usr/bin/env bash
# Prepared in session 23 for the next device session (bundle built as
# gpu-bundle-s23 was: `cargo xtask gpu-bundle -p cuzk-groth16 -p cuzk-msm
# --test gpu --test gpu_device --out gpu-bundle-s24`, then copy this and
# session24-more.sh into it). Call 1 of a warm-machine series:
# the 32 GiB test parameters (~170 s), then 32 GiB PoRep under a
# ${LIMIT:-16GiB} device memory limit at J = ${J:-1}; the record (~85 s)
# is cached in $W/r1cs for the next calls. The bench writes its timeline
# as it runs and a stderr line per partition, so whatever finished by
# ~560 s comes back.
. "$(dirname "$0")/lib.sh"
W=/tmp/s24
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
T params 300 ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32
export J LIMIT
. "$HERE/session24-more.sh"
