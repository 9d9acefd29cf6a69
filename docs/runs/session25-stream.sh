#!/usr/bin/env bash
# Prepared in session 24 for the next device session: where a streamed
# partition's device time goes, in about two minutes and without the
# 32 GiB setup (parameters 170 s, record 85 s). The bench circuit at 2^24
# (bases ~5 GB) proved resident, then streamed under a 2 GiB device
# memory limit: per-partition stderr lines give stream_upload and
# stream_kernels, the JSON the stage table. Copy it into the bundle
# (`cargo xtask gpu-bundle -p cuzk-groth16 -p cuzk-msm --test gpu
# --test gpu_device --out gpu-bundle-s25`), then
#   bash gpu-bundle-s25/session25-stream.sh
# Compare msm_* stages resident vs streamed: kernels ≈ resident means the
# transfers bound it (then check stream_bytes / stream_upload against the
# link's pinned rate); kernels ≫ resident means the per-chunk MSMs do.
# LIMITS (default "none 2GiB") lists the limits to run, "none" resident.
[ -n "${HERE:-}" ] || . "$(dirname "$0")/lib.sh"
W=${W:-/tmp/s25}
mkdir -p $W && { [ -x $W/cuzk ] || cp "$B"/bin/* $W/; }
cd $W
for L in ${LIMITS:-none 2GiB}; do
  lim=(--memory-limit "$L"); [ "$L" = none ] && lim=()
  T "bench24-$L" 240 bash -c "./cuzk bench --log-size 24 -p 2 -j 4 --backend gpu --param-cache $W/params ${lim[*]} --timeline $O/tl-24-$L.jsonl --json > $O/b24-$L.json 2> $O/b24-$L.err"
done
finish
