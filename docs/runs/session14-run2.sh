#!/usr/bin/env bash
# Device run 2 of session 14 (2026-12-03). Issue 18 item 5: does a second
# GPU worker overlap one partition's H step with another's MSMs? The
# anchor's cuzk side alone on the SHA-256 circuit at 2^24, a batch of 4
# after one warm-up, with one GPU worker and with two, each writing its
# engine timeline (drawn with `cuzk timeline`) and the MSM phase profile.
# Same bundle as run 1.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1 CUZK_MSM_PROFILE=1
mkdir -p /tmp/anchor
for gw in 2 1; do
  T anchor_gw$gw "$(left 280)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --sides cuzk --batch 4 --warmup 1 --gw $gw \
    --params-dir /tmp/anchor --timeline "$O/timeline_gw$gw.jsonl" --json "$O/anchor_gw$gw.json"
done
finish
