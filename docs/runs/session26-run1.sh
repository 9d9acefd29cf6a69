#!/usr/bin/env bash
# Session 26, device call 1 (bundle: `cargo xtask gpu-bundle -p
# cuzk-groth16 -p cuzk-msm --test gpu --test gpu_device --out
# gpu-bundle-s26`, gpu-hog built into its bin/, and the session26-*.sh
# and session25-stream.sh scripts copied into it). First device run of
# the streamed pass with one bucket accumulator per pass.
# - background: the 32 GiB test parameters (GPU generator, ~233 s); once
#   the foreground is done, 32 GiB PoRep (random C1s, native witness) at
#   J = ${J:-8} under a ${LIMIT:-16GiB} device memory limit, with a
#   timeline (session26-bench.sh);
# - foreground, while the parameters are made: the msm streamed tests and
#   the groth16 GPU tests (streamed bytes = resident bytes); then the
#   2^24 stream bench (resident, 2 GiB, 6 GiB: session25-stream.sh);
# - packs what it has at ~${UNTIL:-540} s into $O/s26.tgz;
#   session26-poll.sh collects the rest on the warm machine.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s26
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; while [ ! -f $W/fg.done ]; do sleep 2; done; TAG=a LIMIT=${LIMIT:-16GiB} J=${J:-8} bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
T msm_streamed 150 "$(t cuzk-msm--gpu_device)" --include-ignored --test-threads=1 streamed
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
# The 2^24 runs share the GPU with the parameter generator until it ends.
while ! grep -q params_rc $W/params.log 2>/dev/null; do
  [ "$(left 300)" -lt 0 ] && break
  sleep 2
done
LIMITS="none 2GiB 6GiB" . "$HERE/session25-stream.sh"
touch $W/fg.done
UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
