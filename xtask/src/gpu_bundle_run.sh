#!/usr/bin/env bash
# gpu-bundle/run.sh: run every test (GPU-only ones included) and every
# bench of this bundle on the GPU machine. Written by `cargo xtask gpu-bundle`.
#
#   bash gpu-bundle/run.sh [REPORT_DIR] [TEST_FILTER]
#
# CUZK_TEST_TIMEOUT / CUZK_BENCH_TIMEOUT (seconds, default 300) bound each
# binary; CUZK_SKIP_BENCHES=1 runs the tests only.
#
# REPORT_DIR defaults to $OUT (the device tool's return folder), else
# ./gpu-report. It receives at most 6 files (the tool returns 8): env.txt,
# tests.log, benches.log, one CSV per bench, summary.txt. Exit status: 0
# when every test binary passed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPORT=${1:-${OUT:-$PWD/gpu-report}}
FILTER=${2:-}
mkdir -p "$REPORT"

# The executables travel gzip-compressed; unpack them next to nothing else.
BUNDLE=$(mktemp -d)
cp -r "$HERE"/tests "$HERE"/benches "$HERE"/bin "$BUNDLE"/ 2>/dev/null
find "$BUNDLE" -name '*.gz' -exec gunzip -f {} +
chmod -R +x "$BUNDLE"
export CUZK_EXPECT_GPU=1
export PATH="$PATH:/usr/local/cuda/bin"
export RUST_BACKTRACE=1

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -srm
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1
  command -v cuobjdump || echo "cuobjdump: not on PATH"
  cat "$HERE/MANIFEST"
} > "$REPORT/env.txt"

# What the cuzk binary itself sees (device listing through the GPU runtime).
if [ -x "$BUNDLE/bin/cuzk" ]; then
  "$BUNDLE/bin/cuzk" info >> "$REPORT/env.txt" 2>&1
fi

summary="$REPORT/summary.txt"
: > "$summary"
status=0
for t in "$BUNDLE"/tests/*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  echo "===== test $name" >> "$REPORT/tests.log"
  start=$(date +%s)
  # --include-ignored: the GPU tests are #[ignore]d so CPU-only CI skips them
  # A hang must not eat the whole device call: each binary gets a limit.
  timeout "${CUZK_TEST_TIMEOUT:-300}" "$t" --include-ignored --test-threads=1 $FILTER >> "$REPORT/tests.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  result=$(grep -a "^test result" "$REPORT/tests.log" | tail -1)
  printf 'test  %-45s rc=%d %4ds  %s\n' "$name" "$rc" "$secs" "$result" >> "$summary"
  [ "$rc" -eq 0 ] || status=1
done

for b in "$BUNDLE"/benches/*; do
  [ -z "${CUZK_SKIP_BENCHES:-}" ] || break
  [ -x "$b" ] || continue
  name=$(basename "$b")
  echo "===== bench $name" >> "$REPORT/benches.log"
  start=$(date +%s)
  CUZK_BENCH_OUT="$REPORT/$name.csv" timeout "${CUZK_BENCH_TIMEOUT:-300}" "$b" --bench >> "$REPORT/benches.log" 2>&1
  rc=$?
  printf 'bench %-45s rc=%d %4ds\n' "$name" "$rc" "$(( $(date +%s) - start ))" >> "$summary"
done

# failing tests' names, for the reply's output tail
grep -a -E "^test .* FAILED|panicked at" "$REPORT/tests.log" | head -20 >> "$summary"
echo "----- benches" >> "$summary"
grep -a -v -E "^=====|^$" "$REPORT/benches.log" | tail -40 >> "$summary"
cat "$summary"
exit $status
