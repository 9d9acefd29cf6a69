#!/usr/bin/env bash
# Issue 34, the rounds cap for precomputed sets, within ${UNTIL:-280} s:
# the G1 MSM at the proof's shape against shifted copies (2^24 − 1
# points, 13 copies at c = 20; then, while time is left, 2^27 − 1 with 4
# copies at c = 20), with the affine rounds as the buckets call for
# (auto: 5 at 2^24 with 13 copies, 6 at 2^27 with 4) and capped by
# CUZK_MSM_ROUNDS, with the per-phase profile. The bench checks every
# timed sum against the bases' known discrete logs.
# Carry gpu-bundle-s34 (benches/ from `cargo xtask gpu-bundle -p
# cuzk-groth16 -p cuzk-msm --test cuzk_groth16 --bench gpu_msm`).
. "$(dirname "$0")/lib.sh"
U=${UNTIL:-280}
export CUZK_EXPECT_GPU=1
msm=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
S="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1"
for r in auto 4 3 5; do
  [ "$(left "$U")" -gt 45 ] || break
  cap=(); [ $r = auto ] || cap=(CUZK_MSM_ROUNDS=$r)
  T msm24_r$r 40 env $S "${cap[@]}" CUZK_MSM_BENCH_LOGS="24;" CUZK_MSM_BENCH_PRECOMPUTE="24=20x13" CUZK_BENCH_OUT="/tmp/msm24_r$r.csv" "$msm" --bench
done
for r in auto 4; do
  [ "$(left "$U")" -gt 95 ] || break
  cap=(); [ $r = auto ] || cap=(CUZK_MSM_ROUNDS=$r)
  T msm27_r$r 90 env $S "${cap[@]}" CUZK_MSM_BENCH_LOGS="27;" CUZK_MSM_BENCH_PRECOMPUTE="27=20x4" CUZK_BENCH_OUT="/tmp/msm27_r$r.csv" "$msm" --bench
done
finish
for f in /tmp/msm*_r*.csv; do echo "== $f"; cat "$f"; done 2>/dev/null | tee -a "$O/log.txt"
