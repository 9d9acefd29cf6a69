#!/usr/bin/env bash
# After session34-post.sh on the same warm machine, within ${UNTIL:-540} s:
# - groth16's GPU unit tests (`gpu_setup_matches_cpu`: the GPU setup
#   from a record equals the CPU one, bit for bit);
# - one 32 GiB WindowPoSt partition's witness, native and witness-only on
#   all cores (`cuzk-post-synth --no-serial-generic`: RESULT … same=true),
#   against the record session34-post.sh kept in /tmp/s32/r1cs (so
#   nothing is recorded);
# - while time is left, issue 34's rounds cap for precomputed sets: the
#   G1 MSM at the proof's shape against shifted copies (2^24 − 1 points,
#   13 copies at c = 20; then 2^27 − 1, 4 copies at c = 20) with the
#   affine rounds as the buckets call for and capped by CUZK_MSM_ROUNDS
#   (each timed sum checked against the bases' known logs).
# Carry the bundle gpu-bundle-s34 with tests/ and benches/ from `cargo
# xtask gpu-bundle -p cuzk-groth16 -p cuzk-msm --test cuzk_groth16
# --bench gpu_msm` and its bin/cuzk-post-synth.
. "$(dirname "$0")/lib.sh"
U=${UNTIL:-540}
export CUZK_EXPECT_GPU=1
for t in "$B"/tests/cuzk-groth16*; do
  T "$(basename "$t")" 120 "$t" --include-ignored --test-threads=1 gpu_
done
export CUZK_R1CS_CACHE=/tmp/s32/r1cs
ls -la "$CUZK_R1CS_CACHE" >> "$O/log.txt" 2>&1
[ "$(left "$U")" -gt 200 ] && T post32-window "$(( $(left "$U") - 100 ))" /usr/bin/time -v "$B/bin/cuzk-post-synth" --post window --sector-size 32GiB --no-serial-generic
msm=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
S="CUZK_MSM_PROFILE=1 CUZK_MSM_BENCH_PROOF_SHAPE=1"
for r in auto 4 3 5; do
  [ "$(left "$U")" -gt 45 ] || break
  cap=(); [ $r = auto ] || cap=(CUZK_MSM_ROUNDS=$r)
  T msm24_r$r 40 env $S "${cap[@]}" CUZK_MSM_BENCH_LOGS="24;" CUZK_MSM_BENCH_PRECOMPUTE="24=20x13" CUZK_BENCH_OUT="/tmp/msm24_r$r.csv" "$msm" --bench
done
for r in auto 4; do
  [ "$(left "$U")" -gt 100 ] || break
  cap=(); [ $r = auto ] || cap=(CUZK_MSM_ROUNDS=$r)
  T msm27_r$r 95 env $S "${cap[@]}" CUZK_MSM_BENCH_LOGS="27;" CUZK_MSM_BENCH_PRECOMPUTE="27=20x4" CUZK_BENCH_OUT="/tmp/msm27_r$r.csv" "$msm" --bench
done
finish
grep -a -E "^RESULT|test result|Maximum resident|record:" "$O/log.txt"
for f in /tmp/msm*_r*.csv; do echo "== $f"; cat "$f"; done 2>/dev/null | tee -a "$O/log.txt"
