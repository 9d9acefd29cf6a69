#!/usr/bin/env bash
# Session 25: waits for the background 32 GiB bench of session25-run1.sh
# (until it prints rc= or ${UNTIL:-480} s of this call have passed), then
# packs what it has so far, with this call's logs, into $O/s25.tgz (one
# file: the device returns only a few). On the warm machine:
#   bash gpu-bundle-s25/session25-poll.sh
[ -n "${HERE:-}" ] || . "$(dirname "$0")/lib.sh"
W=/tmp/s25
while ! grep -q '^rc=' $W/b32.err 2>/dev/null; do
  [ "$(left ${UNTIL:-480})" -lt 0 ] && break
  sleep 5
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
mkdir -p $W/pack
cp $W/params.log $W/b32.json $W/b32.err $W/tl32.jsonl "$O"/*.txt "$O"/*.json "$O"/*.err "$O"/*.jsonl $W/pack/ 2>/dev/null
tar czf "$O/s25.tgz" -C $W/pack .
rm -f "$O"/*.json "$O"/*.err "$O"/*.jsonl
finish 2>/dev/null
