#!/usr/bin/env bash
# Device run 2 of session 3 (2026-11-30): (1) where the G1 MSM's time goes,
# per kernel (ncu, one metric: kernel duration) in the focused MSM bench
# (2^20 and 2^24); (2) a 2^26-constraint proof on the GPU, checked by
# bellperson's verifier, side by side with bellperson + supraseal-c2 on the
# same parameters: GPU setup (QAP evaluated while synthesizing), one
# circuit and a batch of 2 per side, no warm-up.
# Bundle: `cargo xtask gpu-bundle -p cuzk-msm --anchor --no-extras` with the
# two-block default (CUZK_MSM_OCC unset); gpu_msm bench and bins only.
. "$(dirname "$0")/lib.sh"
BENCH=$(ls "$B"/benches/cuzk-msm--gpu_msm* | head -1)
T ncu_msm 110 /usr/local/cuda/bin/ncu --metrics gpu__time_duration.sum --csv --print-units base \
  --log-file "$O/ncu.csv" env CUZK_MSM_BENCH_FOCUS=1 CUZK_BENCH_OUT="$O/bench_ncu.csv" "$BENCH" --bench
gzip -f "$O/ncu.csv"
mkdir -p /tmp/anchor
( while sleep 20; do echo "$(date +%T) $(free -g | awk '/Mem/ {print "used", $3, "G"}') $(nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader)"; done ) > "$O/monitor.txt" 2>&1 &
T anchor26 "$(left 580)" "$B/bin/cuzk-anchor" --sizes 26 --batch 2 --warmup 0 --params-dir /tmp/anchor --json "$O/anchor26.json"
finish
