#!/usr/bin/env bash
# Device run 4 of session 16 (2026-12-03): supraseal-c2's side of run 3's
# 2^27 side by side, on the parameters run 3 left in /tmp/anchor (same warm
# machine), one warm-up then one measured proof. Same bundle as run 1.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
T anchor27_supraseal "$(left 590)" "$B/bin/cuzk-anchor" --circuit sha --sizes 27 --sides supraseal --batch 1 --warmup 1 \
  --params-dir /tmp/anchor --json "$O/anchor27_supraseal.json"
finish
