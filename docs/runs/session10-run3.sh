#!/usr/bin/env bash
# Device run 3 of session 10 (2026-12-02), a fresh machine. Issue 18:
# cuzk against bellperson 0.26 + supraseal-c2, same card and .params,
# every proof checked by bellperson: the SHA-256-only circuit (no field
# filler) at 2^24, batch 10, and 2^26, batch 2 (no warm-up); the bench
# circuit (chain + filler) at 2^24, batch 4, to see whether supraseal-c2's
# proofs verify on it in this run; then the NTT's H-step test alone (run 2
# cut it at its 120 s limit). Parameters by cuzk's GPU setup inside the
# anchor. CUZK_MSM_L0=segments: the level 0 that won run 2's A/B (the
# anchor was built while both variants existed; it is the code that lands).
# Carried: bin cuzk-anchor and test cuzk-ntt--gpu of run 2's build.
. "$(dirname "$0")/lib.sh"
export CUZK_MSM_L0=segments CUZK_EXPECT_GPU=1
mkdir -p /tmp/anchor
T anchor_sha24 "$(left 230)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 10 --params-dir /tmp/anchor --json "$O/anchor_sha24.json"
T anchor_sha26 "$(left 430)" "$B/bin/cuzk-anchor" --circuit sha --sizes 26 --batch 2 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor_sha26.json"
rm -f /tmp/anchor/sha-26.params
T anchor_bench24 "$(left 530)" "$B/bin/cuzk-anchor" --circuit bench --sizes 24 --batch 4 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor_bench24.json"
T ntt_h_step "$(left 585)" "$(ls "$B"/tests/cuzk-ntt--gpu* | head -1)" --include-ignored --test-threads=1 h_step
finish
