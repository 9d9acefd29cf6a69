#!/usr/bin/env bash
# Device run 5 of session 8 (2026-12-02), a fresh machine: issue 15's
# "verify_seal accepts a 2 KiB PoRep proof made on the GPU through the
# new path". `cuzk testdata porep --sector-size 2KiB --generator cuzk-gpu`
# (cuzk's setup, a sealed 2 KiB sector, its C1), then `cuzk prove porep
# --backend gpu` (the default compiled synthesis: the circuit recorded,
# each partition witness-only, a, b, c computed on the GPU; the proof is
# checked with filecoin-proofs' verify_seal before it is written), then
# `cuzk verify porep` on it and on a copy with one byte flipped.
# Bundle: `cargo xtask gpu-bundle -p cuzk-groth16 --test gpu --no-extras`.
. "$(dirname "$0")/lib.sh"
C=${CUZK:-$B/bin/cuzk}
BACKEND=${BACKEND:-gpu}
GEN=${GEN:-cuzk-gpu}
run=$($C testdata porep --sector-size 2KiB --generator $GEN --dir /tmp/td2 2>>"$O/log.txt" | tee -a "$O/log.txt" | grep '^run:')
args=${run#run:    cuzk prove porep }
args=${args% --out /tmp/c2.proof}
export CUZK_R1CS_CACHE=/tmp/td2/r1cs
# shellcheck disable=SC2086
T prove_porep_2kib_$BACKEND 300 $C prove porep $args --backend $BACKEND --out /tmp/td2/c2.proof
# shellcheck disable=SC2086
T verify_porep_2kib 120 $C verify porep $args --proof /tmp/td2/c2.proof
cp /tmp/td2/c2.proof /tmp/td2/bad.proof
b=$(od -An -tu1 -j42 -N1 /tmp/td2/c2.proof | tr -d ' ')
printf "$(printf '\\x%02x' $(( b ^ 1 )))" | dd of=/tmp/td2/bad.proof bs=1 seek=42 conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
T verify_porep_2kib_flipped_must_fail 120 $C verify porep $args --proof /tmp/td2/bad.proof
finish
