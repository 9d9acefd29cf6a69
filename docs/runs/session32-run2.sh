#!/usr/bin/env bash
# Device call 2 of session 32, on the warm machine: waits for call 1's
# NI-PoRep bench until ${UNTIL:-380} s, then, if it ended and the GPU is
# free, issue 34's A/B of the affine rounds' backward pass
# (session31-msm.sh: G1 2^24 − 1 twice and 2^27 − 1 once, new against
# old, with the per-phase profile, ≈ 150 s, within ${MSM_UNTIL:-150} s),
# and packs everything into $O/s26.tgz.
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
TAG=ni UNTIL=${UNTIL:-380} . "$HERE/session26-poll.sh"
if grep -q '^rc=' $W/b32-ni.err 2>/dev/null; then
  UNTIL=${MSM_UNTIL:-150} bash "$HERE/session31-msm.sh" > /dev/null 2>&1
  UNTIL=0 TAG=ni . "$HERE/session26-poll.sh"
fi
