#!/usr/bin/env bash
# Device run 1 of session 18 (2026-12-04). Issue 33: a streamed placement
# computes a recorded circuit's a, b, c on the device (matrices kept, or
# one matrix at a time from page-locked memory, or on the CPU when not
# even one fits): spmv gpu (one matrix at a time == all three), groth16
# gpu (the three record modes give the CPU's bytes), scheduler
# gpu_engine; the link's ceiling (transfer bench: pinned, two streams,
# H2D beside D2H); 2 KiB PoRep streamed through verify_seal; then the
# 32 GiB PoRep parameters for runs 2 and 3.
# Bundle (gpu-bundle-r1): `cargo xtask gpu-bundle --out gpu-bundle-r1
# --no-extras -p cuzk-spmv -p cuzk-groth16 -p cuzk-scheduler -p
# cuzk-pinned-mem --test gpu --test gpu_engine --bench transfer`, the
# `cuzk` binary, and gpu-hog (../shared/tools/gpu-hog) in bin/.
. "$(dirname "$0")/lib.sh"
export CUZK_EXPECT_GPU=1
t() { ls "$B"/tests/"$1"* | head -1; }
W=/tmp/s18
mkdir -p $W && cp "$B/bin/cuzk" "$B/bin/gpu-hog" $W/
T spmv_gpu 90 "$(t cuzk-spmv--gpu)" --include-ignored --test-threads=1
T groth16_gpu 300 "$(t cuzk-groth16--gpu)" --include-ignored --test-threads=1
T engine_gpu 150 "$(t cuzk-scheduler--gpu_engine)" --include-ignored --test-threads=1
CUZK_BENCH_SIZES_MIB=256,1024,4096 T transfer 120 "$(ls "$B"/benches/cuzk-pinned-mem--transfer* | head -1)" --bench
T testdata_2k 120 $W/cuzk testdata porep --sector-size 2KiB --generator cuzk-gpu --dir $W/td2
c1_from_log
export CUZK_R1CS_CACHE=$W/r1cs
for mode in transient limit; do
  extra="--residency transient"; [ $mode = limit ] && extra="--memory-limit 1GiB"
  T "porep_2k_$mode" 120 $W/cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$P2" --out $W/$mode.proof --backend gpu $extra
  T "verify_2k_$mode" 60 $W/cuzk verify porep --c1 "$C1" --proof $W/$mode.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$P2"
done
T info_2k 30 $W/cuzk info --params "$(ls "$P2"/*.params | head -1)" --memory-limit 1GiB
rm -rf $W/td2
T params32 330 $W/cuzk testdata porep --sector-size 32GiB --params-only --generator cuzk-gpu --dir $W/td32
PD=$W/td32/params
ls -l "$PD" >> "$O/log.txt" 2>&1; df -h /tmp >> "$O/log.txt"; free -g >> "$O/log.txt"
for l in auto 16GiB; do
  T "info32_$l" 30 $W/cuzk info --params "$(ls -S "$PD"/*.params | head -1)" --memory-limit $l
done
finish
