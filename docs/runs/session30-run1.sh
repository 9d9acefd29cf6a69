#!/usr/bin/env bash
# Session 30 (planned), device call 1. Bundle: `CUZK_CUDA_ARCHS=90 cargo
# xtask gpu-bundle --out gpu-bundle-s30 -p cuzk-groth16 --test gpu
# --no-extras`, the test binary stripped (`strip --strip-all`), bin/
# emptied, the session26/29/30 scripts copied in, and the sm_90 tarball
# (`cargo xtask dist --cuda --archs 90`) in its dist/: the benches run
# the tarball's own `cuzk` (two copies of the CUDA binary are over the
# device tool's 64 MiB).
# - background: the 32 GiB test parameters (GPU generator, ~250 s), then
#   32 GiB PoRep at J = 8 under each limit of ${LIMITS:-16GiB 24GiB}
#   (session26-bench.sh, tags l16GiB, l24GiB, …): issue 33's streamed
#   partition at pipeline depth 2 (≈ 44 s/proof expected at 16 GiB,
#   against 58.2 s at depth 1); between the two limits, issue 36's 32
#   GiB NI-PoRep bench: one sector, 126 partitions of the interactive
#   circuit, resident (no limit), tag ni;
# - foreground: the groth16 GPU tests (streamed bytes = resident), then
#   issue 37's GPU tarball (session30-dist.sh);
# - packs what it has at ~${UNTIL:-540} s; then, on the warm machine,
#   `TAG=ni UNTIL=560 bash gpu-bundle-s30/session26-poll.sh`, then with
#   TAG=l24GiB, until that bench's .err ends with rc=.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s26
mkdir -p $W
. "$HERE/session30-dist-unpack.sh"
cp "$top/bin/cuzk" $W/
cd $W
export LIMITS=${LIMITS:-16GiB 24GiB}
setsid bash -c "/usr/bin/time -v ./cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32 > $W/params.log 2>&1; echo params_rc=\$? >> $W/params.log; while [ ! -f $W/fg.done ]; do sleep 2; done; L=\${LIMITS%% *}; TAG=l\$L LIMIT=\$L J=${J:-8} bash $HERE/session26-bench.sh; TAG=ni LIMIT=none J=1 ARGS=--ni bash $HERE/session26-bench.sh; for L in \${LIMITS#* }; do TAG=l\$L LIMIT=\$L J=${J:-8} bash $HERE/session26-bench.sh; done" < /dev/null > /dev/null 2>&1 &
T groth16_gpu 240 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
. "$HERE/session30-dist.sh"
touch $W/fg.done
TAG=l${LIMITS%% *} UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
