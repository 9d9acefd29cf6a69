#!/usr/bin/env bash
# Device run 5 of session 11 (2026-12-02), a fresh machine. Issue 18:
# cuzk (with the affine MSM rounds of run 4's code) against bellperson
# 0.26 + supraseal-c2 on the SHA-256-only circuit at 2^24, batch 2, no
# warm-up, every proof checked by bellperson; parameters by cuzk's GPU
# setup inside the anchor. Carried: bin cuzk-anchor from
# `CUZK_CUDA_ARCHS=90 cargo xtask gpu-bundle -p cuzk-msm --test gpu_device
# --anchor --no-extras`.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
mkdir -p /tmp/anchor
T anchor_sha24 "$(left 215)" "$B/bin/cuzk-anchor" --circuit sha --sizes 24 --batch 2 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor_sha24.json"
finish
