#!/usr/bin/env bash
# Device run 2 of session 22 (bundle gpu-bundle-s22: cuzk and
# cuzk-post-synth at the native-PoSt commit). Waits on and collects the
# 32 GiB PoRep bench session22-run1.sh started (the machine must still be
# warm); then, with at least 200 s of the call left, one 32 GiB WindowPoSt
# partition's witness: recorded once, witness-only on 16 threads against
# the native generator on 1 and on 16 (cuzk-post-synth, random vanilla
# proofs, all compared value for value).
. "$(dirname "$0")/lib.sh"
. "$HERE/session22-collect.sh"
if grep -q '^rc=' /tmp/s22/b32.err 2>/dev/null && [ "$(left 560)" -gt 200 ]; then
  cp "$B"/bin/cuzk-post-synth /tmp/s22/
  CUZK_R1CS_CACHE=/tmp/s22/r1cs T post_synth32 "$(left 560)" /tmp/s22/cuzk-post-synth --post window --sector-size 32GiB --no-serial-generic
  grep -a '^RESULT' "$O/log.txt"
fi
