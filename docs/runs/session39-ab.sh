#!/usr/bin/env bash
# Issue 34 on one warm machine, two calls.
# PART=ntt: the H step in six transforms (c's coefficients subtracted by
# the last transform's last pass, F_SUB_OUT, instead of c's coset round
# trip): the ntt GPU tests (GPU == CPU, the H step at 2^10..2^24) and the
# groth16 GPU tests (proofs verified) on the new build, then gpu_ntt at
# the last commit before it (benches/old--gpu_ntt) and on it, twice each,
# alternating (the H step at 2^24 and 2^27 with device inputs).
# PART=msm: the rounds cap for a precomputed H set at the proof's shape
# (2^27 − 1 points, c = 20 with 4 shifted copies on a card of > 100 GB, 3
# on an 80 GB one): auto_rounds picks 6 rounds for its ≈ 830-entry
# buckets against 4 for the plain set; CUZK_MSM_ROUNDS caps them at 4 and
# 5. The bench checks every timed sum against the bases' known discrete
# logs.
# Carried: gpu-bundle-s39: `cargo xtask gpu-bundle -p cuzk-msm -p cuzk-ntt
# --test gpu --bench gpu_msm --bench gpu_ntt --no-extras` at the parent
# commit (its gpu_ntt renamed old--gpu_ntt), and `-p cuzk-ntt -p
# cuzk-groth16 --test gpu --bench gpu_ntt --no-extras` on the change.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
case ${PART:-ntt} in
ntt)
  old=$(ls "$B"/benches/old--gpu_ntt* | head -1)
  new=$(ls "$B"/benches/cuzk-ntt--gpu_ntt* | head -1)
  T ntt_test 150 "$(ls "$B"/tests/cuzk-ntt--gpu* | head -1)" --include-ignored --test-threads=1 h_step spot_sizes
  T groth16_test 200 "$(ls "$B"/tests/cuzk-groth16--gpu* | head -1)" --include-ignored --test-threads=1
  for r in 1 2; do
    for v in old new; do
      [ "$(left ${UNTIL:-560})" -gt 60 ] || break
      T ntt_$v$r 90 env CUZK_BENCH_OUT="$O/ntt_$v$r.csv" "${!v}" --bench
    done
  done
  ;;
msm)
  msm=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
  mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
  k=3; [ "${mem:-0}" -gt 100000 ] && k=4
  for r in auto 4 5; do
    [ "$(left ${UNTIL:-560})" -gt 130 ] || break
    cap=(); [ "$r" = auto ] || cap=(CUZK_MSM_ROUNDS=$r)
    T msm27_r$r 150 env CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1 "CUZK_MSM_BENCH_LOGS=27;" \
      "CUZK_MSM_BENCH_PRECOMPUTE=27=20x$k" "${cap[@]}" CUZK_BENCH_OUT="$O/msm27_r$r.csv" "$msm" --bench
  done
  ;;
esac
finish
