#!/usr/bin/env bash
# Device run 4 of session 8 (2026-12-02), on run 3's warm machine: the
# 32 GiB PoRep parameters are removed (the 64 GiB disk holds one ~47 GB
# file), then WindowPoSt 32 GiB test parameters from cuzk's GPU setup and
# `cuzk bench window-post --sector-size 32GiB` (one full partition of
# 2349 random shape-correct sector proofs), J = 2.
. "$(dirname "$0")/lib.sh"
rm -rf /tmp/s8/td32 /tmp/s8/r1cs
T window32_params 330 /tmp/s8/cuzk testdata window-post --sector-size 32GiB --params-only --generator cuzk-gpu --dir /tmp/s8/tdwin
T bench_window32 $(( $(left 560) > 10 ? $(left 560) : 5 )) /tmp/s8/cuzk bench window-post --sector-size 32GiB \
  --param-cache /tmp/s8/tdwin/params -j 2 --gw 2 --backend gpu --timeline "$O/timeline-window32.jsonl" --json
gzip -f "$O"/timeline-*.jsonl
finish
