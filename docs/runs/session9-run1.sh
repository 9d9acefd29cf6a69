#!/usr/bin/env bash
# Device run 1 of session 9 (2026-12-02), a fresh machine.
# - Issue 17: WindowPoSt 32 GiB test parameters (cuzk's GPU setup) start
#   in their own process session, so they outlive this call; run 2 (the
#   next call on the same warm machine) waits for them and benches.
# - Issue 15: the SpMV kernel's time against its floor (2^20..2^24); an
#   8 MiB PoRep proof made on the GPU through the compiled path, checked
#   by verify_seal (and a flipped byte rejected); the 32 GiB witness
#   core-seconds (10 partitions at once) and compiled == classic for one
#   32 GiB partition on a random shape-correct C1.
# Bundle: `cargo xtask gpu-bundle -p cuzk-spmv -p cuzk-groth16 --test gpu`.
. "$(dirname "$0")/lib.sh"
W=/tmp/s9
mkdir -p $W && cp "$B/bin/cuzk" "$B/bin/cuzk-porep-synth" $W/
export CUZK_R1CS_CACHE=$W/r1cs
setsid bash -c "$W/cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu \
  --dir $W/tdwin > $W/win_params.log 2>&1; echo rc=\$? >> $W/win_params.log" < /dev/null > /dev/null 2>&1 &

T spmv_time 200 "$B/tests/cuzk-spmv--gpu" --include-ignored --test-threads 1 --nocapture device_spmv_time

# 32 GiB: record (saved under $CUZK_R1CS_CACHE), ten witnesses at once,
# then one partition checked against the classic synthesis.
( while sleep 2; do free -b | awk 'NR==2{print $3}' >> "$O/used_bytes.txt"; done ) &
SAMPLER=$!
T synth32_compiled_10 $(( $(left 330) > 30 ? $(left 330) : 20 )) $W/cuzk-porep-synth --sector-size 32GiB --compiled --partitions 10
T synth32_check_1 $(( $(left 470) > 10 ? $(left 470) : 5 )) $W/cuzk-porep-synth --sector-size 32GiB --compiled --partitions 1 --check
kill $SAMPLER
# 8 MiB PoRep: cuzk's GPU setup, a sealed 8 MiB sector and its C1, then the
# proof on the GPU through the default compiled synthesis.
C=$W/cuzk
run=$(timeout $(( $(left 540) > 10 ? $(left 540) : 5 )) $C testdata porep --sector-size 8MiB --generator cuzk-gpu --dir $W/td8 2>>"$O/log.txt" | tee -a "$O/log.txt" | grep '^run:')
args=${run#run:    cuzk prove porep }
args=${args% --out /tmp/c2.proof}
# shellcheck disable=SC2086
T prove_porep_8mib_gpu $(( $(left 560) > 10 ? $(left 560) : 5 )) $C prove porep $args --backend gpu --out $W/td8/c2.proof
# shellcheck disable=SC2086
T verify_porep_8mib 120 $C verify porep $args --proof $W/td8/c2.proof
cp $W/td8/c2.proof $W/td8/bad.proof
b=$(od -An -tu1 -j42 -N1 $W/td8/c2.proof | tr -d ' ')
printf "$(printf '\\x%02x' $(( b ^ 1 )))" | dd of=$W/td8/bad.proof bs=1 seek=42 conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
T verify_porep_8mib_flipped_must_fail 120 $C verify porep $args --proof $W/td8/bad.proof

sort -n "$O/used_bytes.txt" | tail -1 > "$O/peak_used_bytes.txt"
grep -a '^RESULT' "$O/log.txt" > "$O/results.txt"
cp $W/win_params.log "$O/" 2>/dev/null
finish
