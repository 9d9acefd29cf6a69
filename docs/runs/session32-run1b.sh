#!/usr/bin/env bash
# Device call of session 32 when only one call's time was left (failed
# starts took the rest): issue 34's A/B of the affine rounds' backward
# pass (session31-msm.sh, G1 2^24 − 1 twice and 2^27 − 1 once, new
# against old, with the per-phase profile, ≈ 150 s), then issue 35's CPU
# figures on the 16 cores (session32-cpu35.sh: ten 32 GiB PoRep
# witnesses at once, then one 32 GiB WindowPoSt partition's witness)
# until ${UNTIL:-550} s. No parameters are needed. Carry gpu-bundle-s32b:
# lib.sh, these three scripts, benches/{cuzk-msm--gpu_msm,old--gpu_msm}.xz
# (as in gpu-bundle-s32) and bin/{cuzk-porep-synth,cuzk-post-synth}.xz
# (release at 0837d0b, stripped).
# The six bench CSVs go into one msm-csv.tgz (the device returns at most
# eight files).
HERE=$(cd "$(dirname "$0")" && pwd)
S0=$(date +%s)
O=${OUT:-$PWD/gpu-report}
UNTIL=150 bash "$HERE/session31-msm.sh" > /dev/null 2>&1
(cd "$O" && tar czf msm-csv.tgz ./*.csv && rm -f ./*.csv)
UNTIL=$(( ${UNTIL:-550} - ($(date +%s) - S0) )) bash "$HERE/session32-cpu35.sh"
grep -a -E "rounds|msm2[47]_|ms" "$O/summary.txt" | head
