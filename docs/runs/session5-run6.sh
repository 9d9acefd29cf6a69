#!/usr/bin/env bash
# Device run 6 of session 5 (2026-12-01): `cuzk daemon` on the H200 with a
# 2^24 bench job stream from a Python gRPC client (grpcio-tools carried as
# wheels: `.whl`), against `cuzk bench` at the same c and gw in the same run.
# Carry: gpu-bundle (the `cuzk` binary) and .whl.
. "$(dirname "$0")/lib.sh"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$HERE"/../.whl/*.whl >> "$O/log.txt" 2>&1
export PYTHONPATH=/tmp/site
P=/tmp/s6p; mkdir -p $P
T setup24 120 "$B/bin/cuzk" setup --log-size 24 --out $P/bench-k24-setup0.params
T bench24 120 "$B/bin/cuzk" bench --log-size 24 -p 1 -j 12 -c 16 --gw 2 --backend gpu --param-cache $P --json
cat > /tmp/s6.toml <<TOML
[daemon]
listen = "127.0.0.1:9820"
metrics_listen = "127.0.0.1:9821"
bench_max_log_size = 24
[srs]
param_cache = "$P"
[synthesis]
concurrency = 16
[gpus]
gpu_workers_per_device = 2
TOML
"$B/bin/cuzk" daemon --config /tmp/s6.toml --backend gpu > "$O/daemon.log" 2>&1 &
DP=$!
for i in $(seq 60); do python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9821/status', timeout=2)" 2>/dev/null && break; sleep 1; done
T warm 120 python3 "$HERE/../docs/runs/session5_daemon_stream.py" 9820 2 24
T stream24 200 python3 "$HERE/../docs/runs/session5_daemon_stream.py" 9820 12 24
python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:9821/metrics').read().decode())" > "$O/metrics.txt" 2>&1
python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:9821/status').read().decode())" > "$O/status.json" 2>&1
kill -TERM $DP; wait $DP; echo "daemon exit $?" >> "$O/summary.txt"
grep -a '^{' "$O/log.txt" > "$O/results.jsonl"
finish
