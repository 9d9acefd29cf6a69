#!/usr/bin/env bash
# After session34-post.sh or session35-post.sh on the same warm machine, within ${UNTIL:-300}
# s: one 32 GiB WindowPoSt partition's witness, native and witness-only on
# all cores (`cuzk-post-synth --no-serial-generic`: RESULT … same=true),
# against the record session34-post.sh kept in /tmp/s32/r1cs (so nothing
# is recorded). Carry the bundle with bin/cuzk-post-synth.
. "$(dirname "$0")/lib.sh"
export CUZK_R1CS_CACHE=/tmp/s32/r1cs
ls -la "$CUZK_R1CS_CACHE" >> "$O/log.txt" 2>&1
T post32-window "$(left "${UNTIL:-300}")" /usr/bin/time -v "$B/bin/cuzk-post-synth" --post window --sector-size 32GiB --no-serial-generic
finish
grep -a -E "^RESULT|Maximum resident|record:" "$O/log.txt"
