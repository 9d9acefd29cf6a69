#!/usr/bin/env bash
# Session 26, a later call on the warm machine of session26-run1.sh: a
# second 32 GiB PoRep bench (session26-bench.sh) against the parameters
# run 1 made, e.g. beside gpu-hog: TAG=hog HOG=17 LIMIT=none J=8, or
# under another limit: TAG=l24 LIMIT=24GiB; then polls it like
# session26-poll.sh.
. "$(dirname "$0")/lib.sh"
W=/tmp/s26
setsid bash -c "TAG=$TAG LIMIT=${LIMIT:-none} J=${J:-8} HOG=${HOG:-} bash $HERE/session26-bench.sh" < /dev/null > /dev/null 2>&1 &
TAG=$TAG UNTIL=${UNTIL:-560} . "$HERE/session26-poll.sh"
