#!/usr/bin/env bash
# CPU figures for issue 35 that need the device host's 16 cores (no GPU
# used), within ${UNTIL:-540} s:
# - ten 32 GiB PoRep partitions' witnesses at once, witness-only and
#   native (`cuzk-porep-synth --compiled --native --partitions 10`, random
#   C1; the record is made first, ~5.8 GB, 99 s; it prints
#   together_core_s and together_wall_s);
# - one 32 GiB WindowPoSt partition's witness, native and witness-only on
#   all cores (`cuzk-post-synth --no-serial-generic`; its witness-only
#   pass over 2349 sectors took over 110 s, so it gets the rest).
# SKIP_POREP=1 leaves out the first (its figures are in the session 32
# run log). Carry a bundle with bin/{cuzk-porep-synth,cuzk-post-synth} (release,
# stripped, xz) beside lib.sh and this script.
. "$(dirname "$0")/lib.sh"
U=${UNTIL:-540}
export CUZK_R1CS_CACHE=/tmp/s32/r1cs
mkdir -p "$CUZK_R1CS_CACHE"
[ -n "${SKIP_POREP:-}" ] || T porep32-native-10 "$(left "$U")" /usr/bin/time -v "$B/bin/cuzk-porep-synth" --sector-size 32GiB --compiled --native --partitions 10
T post32-window "$(left "$U")" /usr/bin/time -v "$B/bin/cuzk-post-synth" --post window --sector-size 32GiB --no-serial-generic
finish
grep -a -E "^RESULT|together|Maximum resident" "$O/log.txt"
