#!/usr/bin/env bash
# Device call 2, on the warm machine: waits for call 1's last bench (the
# 24 GiB one, after the NI bench) until ${UNTIL:-540} s and packs all of
# them so far into $O/s26.tgz. A third call, if device time is left:
# `UNTIL=540 SKIP_POREP=1 bash gpu-bundle-s33/session32-cpu35.sh` (the
# 32 GiB WindowPoSt witness, issue 35; no GPU).
. "$(dirname "$0")/lib.sh"
TAG=l24GiB UNTIL=${UNTIL:-540} . "$HERE/session26-poll.sh"
