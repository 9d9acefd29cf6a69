#!/usr/bin/env bash
# Session 29, device call 1. Bundle gpu-bundle-s29: `CUZK_CUDA_ARCHS=90
# cargo xtask gpu-bundle --out gpu-bundle-s29 -p cuzk-groth16 -p cuzk-msm
# -p cuzk-pairing -p cuzk-snarkpack --test gpu --test gpu_device`, plus the
# release examples pairing_bench and aggregate_vs_bellperson (`--features
# cuda`) and gpu-hog in its bin/, and the session26/29 scripts.
# - background: the 32 GiB test parameters (GPU generator), then, once the
#   foreground is done, 32 GiB PoRep (random C1s, native witness) at J = 8
#   under a ${LIMIT:-16GiB} device memory limit (session26-bench.sh, tag a):
#   issue 33's time-shared streamed partition, first run on a GPU;
# - foreground, while the parameters are made (correctness only, no
#   timings): the groth16 GPU tests, cuzk-pairing's
#   and cuzk-snarkpack's GPU tests; a 2 KiB NI-PoRep sector proved on the
#   GPU, verified, and a flipped byte rejected (issue 36);
# - packs what it has at ~${UNTIL:-540} s into $O/s26.tgz;
#   session26-poll.sh collects the rest on the warm machine.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s26
mkdir -p $W && cp "$B"/bin/* $W/
cd $W
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; while [ ! -f $W/fg.done ]; do sleep 2; done; TAG=a LIMIT=${LIMIT:-16GiB} J=${J:-8} bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
# the msm streamed test (gpu_device) is left out of this bundle (64 MiB): it passed in session 26 and the groth16 tests stream whole proofs
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T pairing_gpu 200 "$(t cuzk-pairing--gpu)" --include-ignored --test-threads=1
T snarkpack_gpu 200 "$(t cuzk-snarkpack--gpu)" --include-ignored --test-threads=1
NI=2KiB . "$HERE/session29-ni.sh"
touch $W/fg.done
UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
