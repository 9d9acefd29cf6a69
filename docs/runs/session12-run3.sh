#!/usr/bin/env bash
# Device run 3 of session 12 (2026-12-02), on run 2's still-warm machine
# (run as one inline command; kept here to repeat it). Issue 18: the side
# by side at 2^27, the PoRep 32 GiB domain, on the SHA-256-only circuit,
# batch 1, no warm-up, every proof checked by bellperson. The 2^27
# parameters (48 GB) need the disk that run 2's 2^26 file held, hence the
# rm. Carried: run 2's gpu-bundle-r2 (bin cuzk-anchor).
set -u
rm -rf /tmp/anchor/*.params
B=$(mktemp -d)
cp gpu-bundle-r2/bin/cuzk-anchor.gz "$B"/ && gunzip "$B"/cuzk-anchor.gz && chmod +x "$B"/cuzk-anchor
mkdir -p /tmp/anchor
CUZK_EXPECT_GPU=1 timeout 480 "$B"/cuzk-anchor --circuit sha --sizes 27 --batch 1 --warmup 0 \
  --params-dir /tmp/anchor --json "$OUT/anchor_sha27.json" > "$OUT/log27.txt" 2>&1
echo rc=$?
