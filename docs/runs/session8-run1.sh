#!/usr/bin/env bash
# Device run 1 of session 8 (2026-12-02). The 32 GiB PoRep test parameters
# (cuzk's GPU setup, ~200 s, 47.4 GB) generate in the background for runs
# 2 and 3 (same warm machine, /tmp/s8) while the GPU tests of this
# session's code run:
# - issue 15: the SpMV kernel == classic synthesis (cuzk-spmv's gpu test),
#   and a deferred assignment (a, b, c computed on the device from the
#   record) gives the CPU backend's proof bytes (cuzk-groth16's gpu test);
# - issue 17: WinningPoSt, WindowPoSt and SnapDeals at 2 KiB through
#   `cuzk prove … --backend gpu`, accepted by `cuzk verify …`
#   (filecoin-proofs' verifiers), a flipped byte rejected.
# Bundle: `cargo xtask gpu-bundle -p cuzk-spmv -p cuzk-groth16 --anchor`.
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/s8 && cp "$B/bin/cuzk" "$B/bin/cuzk-anchor" "$B/bin/cuzk-porep-synth" /tmp/s8/
( timeout 420 /tmp/s8/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu \
    --dir /tmp/s8/td32 > "$O/params32.txt" 2>&1; echo "rc=$?" >> "$O/params32.txt" ) &
GEN=$!
T spmv_gpu 150 "$B/tests/cuzk-spmv--gpu" --include-ignored --test-threads 1 --nocapture
T groth16_deferred 240 "$B/tests/cuzk-groth16--gpu" --include-ignored --test-threads 1 --nocapture gpu_deferred

C=/tmp/s8/cuzk D=/tmp/s8/post
# A copy of proof $1 with byte 42 XOR 1 as $2 (its verify must fail: rc != 0).
flip() {
  cp "$1" "$2"
  local b; b=$(od -An -tu1 -j42 -N1 "$1" | tr -d ' ')
  printf "$(printf '\\x%02x' $(( b ^ 1 )))" | dd of="$2" bs=1 seek=42 conv=notrunc 2>/dev/null
}
mkdir -p $D
R=a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a727
for k in winning-post window-post; do
  run=$($C testdata $k --sectors 2 --randomness $R --prover-id f01000 \
        --vanilla-out $D/$k.json --sectors-out $D/$k-set.json 2>>"$O/log.txt" | grep '^run:')
  echo "$run" >> "$O/log.txt"
  PC=$(echo "$run" | sed 's/.*--param-cache \([^ ]*\).*/\1/')
  T prove_$k 120 $C prove $k --vanilla $D/$k.json --sector-size 2KiB --randomness $R \
    --prover-id f01000 --param-cache "$PC" --out $D/$k.proof --backend gpu
  V=(--sectors $D/$k-set.json --sector-size 2KiB --randomness $R --prover-id f01000 --param-cache "$PC")
  T verify_$k 60 $C verify $k --proof $D/$k.proof "${V[@]}"
  flip $D/$k.proof $D/$k.bad
  T verify_${k}_flipped_must_fail 60 $C verify $k --proof $D/$k.bad "${V[@]}"
done
run=$($C testdata snap --vanilla-out $D/snap.json 2>>"$O/log.txt" | grep '^run:')
echo "$run" >> "$O/log.txt"
arg() { echo "$run" | sed "s/.*--$1 \([^ ]*\).*/\1/"; }
S=(--sector-size 2KiB --comm-r-old "$(arg comm-r-old)" --comm-r-new "$(arg comm-r-new)"
   --comm-d-new "$(arg comm-d-new)" --param-cache "$(arg param-cache)")
T prove_snap 120 $C prove snap --vanilla $D/snap.json "${S[@]}" --out $D/snap.proof --backend gpu
T verify_snap 60 $C verify snap --proof $D/snap.proof "${S[@]}"
flip $D/snap.proof $D/snap.bad
T verify_snap_flipped_must_fail 60 $C verify snap --proof $D/snap.bad "${S[@]}"
ls -l $D >> "$O/log.txt"

wait $GEN
cat "$O/params32.txt" >> "$O/log.txt"
ls -l /tmp/s8/td32/params >> "$O/log.txt" 2>&1; df -h /tmp >> "$O/log.txt"
finish
