#!/usr/bin/env bash
# Device run 4 of session 14 (2026-12-03). Issue 18: the 2^27 side by side
# (the PoRep 32 GiB domain) with a warm-up proof on each side, SHA-256-only
# circuit. This call: the parameters (generated here, 48 GB) and cuzk's
# side, one warm-up then one measured proof, with the MSM phase profile
# and the engine timeline. Run 5 (the next call, on the same warm machine)
# runs supraseal-c2's side on the same file. Same bundle as run 3.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1 CUZK_MSM_PROFILE=1
mkdir -p /tmp/anchor
rm -f /tmp/anchor/sha-24.params /tmp/anchor/sha-26.params
T anchor27_cuzk "$(left 590)" "$B/bin/cuzk-anchor" --circuit sha --sizes 27 --sides cuzk --batch 1 --warmup 1 \
  --params-dir /tmp/anchor --timeline "$O/timeline27.jsonl" --json "$O/anchor27_cuzk.json"
finish
