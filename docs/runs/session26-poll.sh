#!/usr/bin/env bash
# Session 26: waits for the background 32 GiB bench $TAG (default a) until
# its .err ends with rc= or ${UNTIL:-480} s of this call have passed, then
# packs it so far, with this call's logs, into $O/s26.tgz (one file: the
# device returns only a few). On the warm machine:
#   bash gpu-bundle-s26/session26-poll.sh
[ -n "${HERE:-}" ] || . "$(dirname "$0")/lib.sh"
W=/tmp/s26
TAG=${TAG:-a}
while ! grep -q '^rc=' $W/b32-$TAG.err 2>/dev/null; do
  [ "$(left ${UNTIL:-480})" -lt 0 ] && break
  sleep 5
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
mkdir -p $W/pack
cp $W/params.log $W/g16.log $W/b32-* $W/tl32-* $W/hog-* $W/mon-* "$O"/*.txt "$O"/*.json "$O"/*.err "$O"/*.jsonl "$O"/*.csv $W/pack/ 2>/dev/null
tar czf "$O/s26.tgz" -C $W/pack .
rm -f "$O"/*.json "$O"/*.err "$O"/*.jsonl "$O"/*.csv
finish 2>/dev/null
