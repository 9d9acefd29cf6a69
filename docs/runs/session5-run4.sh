#!/usr/bin/env bash
# Device run 4 of session 5: collects the 32 GiB PoRep bench run 3 started
# (waits for it), its report, timeline and stderr.
. "$(dirname "$0")/lib.sh"
while ! grep -q '^rc=' /tmp/s5/bench32.err 2>/dev/null; do
  [ "$(left 585)" -lt 0 ] && break
  sleep 5
done
cp /tmp/s5/bench32.out "$O/bench32.json" 2>/dev/null
cp /tmp/s5/bench32.err "$O/bench32.err" 2>/dev/null
gzip -c /tmp/s5/timeline32.jsonl > "$O/timeline32.jsonl.gz" 2>/dev/null
cat "$O/bench32.err"; free -g
