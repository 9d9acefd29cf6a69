#!/usr/bin/env bash
# Device call of session 31 (2026-12-06), issue 34: the affine rounds'
# backward pass with the chord path reading x before y and the rare pairs
# out of line (ptxas, sm_90, under the 128-register bound: 24 bytes of
# spill stores against 108), against the same bench built at 2f42e5e
# (benches/old--gpu_msm): G1 2^24 − 1 new/old twice, then 2^27 − 1 once
# each while ${UNTIL:-170} s allow, all with the per-phase profile
# (rounds.bwd is the pass changed). The bench checks every timed sum
# against the bases' known discrete logs, and its arithmetic-progression
# bases make the rare pairs (tangents, copies) common, so it is also the
# device test of the change; with ~250 s of device time left the test
# binary did not fit.
# Carried: gpu-bundle-msm-new (`cargo xtask gpu-bundle --out
# gpu-bundle-msm-new -p cuzk-msm --test gpu_device --bench gpu_msm
# --no-extras`, less its tests/ and bin/), with the bench built at
# 2f42e5e (`cargo bench -p cuzk-msm --bench gpu_msm --features
# cuzk-msm/cuda --no-run` with the change stashed) gzipped to
# benches/old--gpu_msm.gz.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
new=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
old=$(ls "$B"/benches/old--gpu_msm* | head -1)
S="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1"
for r in 1 2; do
  for v in new old; do
    T msm24_$v$r 40 env $S CUZK_MSM_BENCH_LOGS="24;" CUZK_BENCH_OUT="$O/msm24_$v$r.csv" "${!v}" --bench
  done
done
for v in new old; do
  [ "$(left ${UNTIL:-170})" -gt 70 ] || break
  T msm27_$v 70 env $S CUZK_MSM_BENCH_LOGS="27;" CUZK_BENCH_OUT="$O/msm27_$v.csv" "${!v}" --bench
done
finish
