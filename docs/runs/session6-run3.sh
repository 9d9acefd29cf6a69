#!/usr/bin/env bash
# Device run 3 of session 6 (2026-12-01): issue 15's pre-compiled path at
# 32 GiB. The 32 GiB PoRep test parameters first (cuzk's GPU setup,
# ~240 s; runs 4 and 5 reuse them on the warm machine), then
# `cuzk-porep-synth --compiled`: record the 32 GiB PoRep partition circuit
# (saved under $CUZK_R1CS_CACHE, which run 5's bench loads), 10 random-C1
# witnesses at once on the 16 cores, the CPU SpMV of each; then 8 MiB
# compiled == classic (`--check`) on a random shape-correct C1.
# Bundle: `cargo xtask gpu-bundle -p cuzk-groth16 --anchor` (cuzk,
# cuzk-porep-synth).
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/s6 && cp "$B/bin/cuzk" "$B/bin/cuzk-porep-synth" /tmp/s6/
export CUZK_R1CS_CACHE=/tmp/s6/r1cs
T params32 300 /tmp/s6/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s6/td32
( while sleep 2; do free -b | awk 'NR==2{print $3}' >> "$O/used_bytes.txt"; done ) &
SAMPLER=$!
T synth32_compiled $(( $(left 560) > 60 ? $(left 560) - 45 : 20 )) /tmp/s6/cuzk-porep-synth --sector-size 32GiB --compiled --partitions 10
kill $SAMPLER
T synth8m_check $(( $(left 585) > 10 ? $(left 585) : 5 )) /tmp/s6/cuzk-porep-synth --sector-size 8MiB --compiled --partitions 2 --check
sort -n "$O/used_bytes.txt" | tail -1 > "$O/peak_used_bytes.txt"
grep -a '^RESULT' "$O/log.txt" > "$O/results.txt"
ls -l /tmp/s6/r1cs >> "$O/log.txt" 2>&1
finish
