#!/usr/bin/env bash
# Device run 3 of session 16 (2026-12-03). Issue 18: proofs with the
# placement's shifted H copies. (1) 2^24 side by side, both sides warm,
# SHA-256-only circuit, H copies as the placement chooses (auto); (2) cuzk
# at 2^24 with CUZK_H_COPIES=1 (plain H bases) on the same parameters;
# (3) cuzk at 2^27 (auto), one warm-up and one measured proof, with the
# timeline; run 4 (same warm machine) is supraseal-c2's 2^27 side on the
# parameters left in /tmp/anchor. Same bundle as run 1.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
mkdir -p /tmp/anchor
T anchor24 120 "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 1 --warmup 1 \
  --params-dir /tmp/anchor --json "$O/anchor24.json"
T anchor24_plain 60 env CUZK_H_COPIES=1 "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --sides cuzk --batch 1 --warmup 1 \
  --params-dir /tmp/anchor --json "$O/anchor24_plain.json"
rm -f /tmp/anchor/sha-24.params
T anchor27_cuzk "$(left 590)" "$B/bin/cuzk-anchor" --circuit sha --sizes 27 --sides cuzk --batch 1 --warmup 1 \
  --params-dir /tmp/anchor --timeline "$O/timeline27.jsonl" --json "$O/anchor27_cuzk.json"
finish
