#!/usr/bin/env bash
# CPU figures that need the device host's 16 cores (no GPU used), for
# issues 36 and 35, within UNTIL seconds (default 540):
# - SnarkPack: cuzk's prover against bellperson's at n = 1024 and 8192
#   (the aggregate_vs_bellperson example; bytes compared);
# - one 32 GiB PoRep partition's native witness against witness-only
#   synthesis, then ten at once (`cuzk-porep-synth --compiled --native`,
#   random C1; the record is made first, ~5.8 GB);
# - one 32 GiB WindowPoSt partition's witness, native and witness-only on
#   all cores (`cuzk-post-synth --no-serial-generic`).
# Carry a bundle with bin/{aggregate_vs_bellperson,cuzk-porep-synth,cuzk-post-synth}
# (gpu-bundle-s27cpu).
. "$(dirname "$0")/lib.sh"
U=${UNTIL:-540}
export CUZK_R1CS_CACHE=/tmp/s27/r1cs
mkdir -p "$CUZK_R1CS_CACHE"
T snarkpack-1024 120 "$B/bin/aggregate_vs_bellperson" 1024 2
T snarkpack-8192 "$(left "$U")" "$B/bin/aggregate_vs_bellperson" 8192 2
T porep32-native-1 "$(left "$U")" "$B/bin/cuzk-porep-synth" --sector-size 32GiB --compiled --native --partitions 1
T post32-window "$(left "$U")" "$B/bin/cuzk-post-synth" --post window --sector-size 32GiB --no-serial-generic
T porep32-native-10 "$(left "$U")" "$B/bin/cuzk-porep-synth" --sector-size 32GiB --compiled --native --partitions 10
finish
grep -a -E "^n = |bellperson:|^RESULT" "$O/log.txt"
