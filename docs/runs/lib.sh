# Sourced by the docs/runs/session*.sh device scripts (copied next to them
# into gpu-bundle/ by `cargo xtask gpu-bundle`). Sets HERE (the bundle),
# O (the report folder: $OUT on the device), B (a temporary folder with
# the bundle's executables unpacked) and START, and defines T.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
O=${OUT:-$PWD/gpu-report}
mkdir -p "$O"
B=$(mktemp -d)
for d in tests benches bin; do
  if [ -d "$HERE/$d" ]; then cp -r "$HERE/$d" "$B"/; fi
done
find "$B" -name '*.gz' -exec gunzip -f {} +
find "$B" -name '*.xz' -exec xz -df {} +
chmod -R +x "$B"
START=$(date +%s)
export RUST_BACKTRACE=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nproc; free -g; df -h /tmp; cat "$HERE/MANIFEST"; } > "$O/env.txt" 2>&1

# T name limit cmd...: runs cmd with a time limit, output appended to
# $O/log.txt, "name rc=… Ns" appended to $O/summary.txt.
T() {
  local name=$1 lim=$2; shift 2; local s; s=$(date +%s)
  echo "===== $name: $*" >> "$O/log.txt"
  timeout "$lim" "$@" >> "$O/log.txt" 2>&1
  echo "$name rc=$? $(( $(date +%s) - s ))s" >> "$O/summary.txt"
}

# Seconds left of a budget of $1 seconds since START.
left() { echo $(( $1 - ($(date +%s) - START) )); }

# The summary and the first failures, at the end of a script.
finish() {
  cat "$O/summary.txt"
  grep -a -E "FAILED|panicked|^Error|error:" "$O/log.txt" | head -20
}

# After `cuzk testdata porep` logged its "run: cuzk prove porep …" line to
# $O/log.txt: sets C1, PID, SID and P2 (the C1 file, prover id, sector id
# and parameter directory) from the last such line.
c1_from_log() {
  local run; run=$(grep -a '^run: ' "$O/log.txt" | tail -1)
  C1=$(echo "$run" | sed -E 's/.*--c1 ([^ ]+).*/\1/')
  PID=$(echo "$run" | sed -E 's/.*--prover-id ([^ ]+).*/\1/')
  SID=$(echo "$run" | sed -E 's/.*--sector-id ([^ ]+).*/\1/')
  P2=$(echo "$run" | sed -E 's/.*--param-cache ([^ ]+).*/\1/')
}
