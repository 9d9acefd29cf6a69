#!/usr/bin/env bash
# Device run 5 of session 18: waits (within what device time is left) for
# run 4's bench and brings back its report, log and timeline.
. "$(dirname "$0")/lib.sh"
W=/tmp/s18
while ! grep -q '^rc=' $W/bench32.err 2>/dev/null; do
  [ "$(left ${WAIT:-150})" -lt 0 ] && break
  sleep 3
done
cp $W/bench32.out "$O/bench32.json" 2>/dev/null
cp $W/hog.log "$O/" 2>/dev/null
tail -c 200000 $W/bench32.err > "$O/bench32.err" 2>/dev/null
gzip -c $W/timeline32.jsonl > "$O/timeline32.jsonl.gz" 2>/dev/null
ps aux | grep -c "[c]uzk bench" >> "$O/log.txt"
finish
