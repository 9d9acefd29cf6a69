#!/usr/bin/env bash
# Device run 5 of session 17 (2026-12-03), straight after run 4 on its
# warm machine: waits for the 32 GiB PoRep bench and collects its report,
# timeline and log.
. "$(dirname "$0")/lib.sh"
while ! grep -q '^rc=' /tmp/s17/bench32.err 2>/dev/null; do
  [ "$(left 585)" -lt 0 ] && break
  sleep 5
done
cp /tmp/s17/bench32.out "$O/bench32.json" 2>/dev/null
tail -c 200000 /tmp/s17/bench32.err > "$O/bench32.err" 2>/dev/null
gzip -c /tmp/s17/timeline32.jsonl > "$O/timeline32.jsonl.gz" 2>/dev/null
finish
