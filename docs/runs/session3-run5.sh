#!/usr/bin/env bash
# Device run 5 of session 3 (2026-11-30): the 2^26 proof again with both
# session-3 MSM changes, cuzk side only (supraseal-c2's 2^26 figures are
# run 2's), within the session's last ~300 s of device time.
# Bundle: session 3 run 4's.
. "$(dirname "$0")/lib.sh"
mkdir -p /tmp/anchor
T anchor26 "$(left 280)" "$B/bin/cuzk-anchor" --sides cuzk --sizes 26 --batch 2 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor26.json"
finish
