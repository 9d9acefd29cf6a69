#!/usr/bin/env bash
# Session 25, device call 1 of 2 (bundle: `cargo xtask gpu-bundle -p
# cuzk-groth16 -p cuzk-msm --test gpu --test gpu_device --out
# gpu-bundle-s25`, this script, session25-poll.sh and
# session25-stream.sh copied into it). The streamed pass now keeps one
# bucket accumulator per pass on the device.
# - background: the 32 GiB test parameters (GPU generator, ~233 s); once
#   the foreground is done, 32 GiB PoRep (random C1s, native witness) at
#   J = ${J:-8} under a ${LIMIT:-16GiB} device memory limit, with a
#   timeline;
# - foreground, while the parameters are made: the msm streamed tests and
#   the groth16 GPU tests (streamed bytes = resident bytes); once the
#   parameters are done (the GPU otherwise idle), the 2^24 stream bench
#   (resident, 2 GiB, 6 GiB: session25-stream.sh);
# - collects what the 32 GiB bench has reached at ~${UNTIL:-530} s into
#   $O/s25.tgz; session25-poll.sh collects the rest on the warm machine.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s25
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; while [ ! -f $W/fg.done ]; do sleep 2; done; CUZK_R1CS_CACHE=$W/r1cs /usr/bin/time -v ./cuzk bench porep --sector-size 32GiB --param-cache $W/td32/params -j ${J:-8} -c 64 --gw 2 --backend gpu --memory-limit ${LIMIT:-16GiB} --timeline $W/tl32.jsonl --json > $W/b32.json 2> $W/b32.err; echo rc=\$? >> $W/b32.err" < /dev/null > /dev/null 2>&1 &
T msm_streamed 150 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
while ! grep -q params_rc $W/params.log 2>/dev/null; do
  [ "$(left 330)" -lt 0 ] && break
  sleep 2
done
LIMITS="none 2GiB 6GiB" . "$HERE/session25-stream.sh"
touch $W/fg.done
UNTIL=${UNTIL:-530} . "$HERE/session25-poll.sh"
