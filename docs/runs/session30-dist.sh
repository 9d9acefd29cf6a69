#!/usr/bin/env bash
# Issue 37's GPU tarball on the device: unpack it, `cuzk --version`,
# `cuzk info`, a demo proof on the GPU, and the daemon on the shipped
# config until it answers /status. Sourced by session30-run1.sh, or run
# alone; expects the tarball in $HERE/dist/ (`cargo xtask dist --cuda
# --archs 90`, 26.6 MiB: a release's five architectures are over the
# device tool's 64 MiB transfer limit).
[ -n "${HERE:-}" ] || . "$(dirname "$0")/lib.sh"
[ -n "${top:-}" ] || . "$HERE/session30-dist-unpack.sh"
T dist_version 30 "$top/bin/cuzk" --version
T dist_info 60 "$top/bin/cuzk" info
T dist_demo_gpu 300 "$top/bin/cuzk" demo --backend gpu
port=$(( 20000 + RANDOM % 20000 ))
"$top/bin/cuzk" daemon --config "$top/etc/cuzk.example.toml" --listen "127.0.0.1:$port" > "$O/dist-daemon.log" 2>&1 &
dpid=$!
for _ in $(seq 60); do
  sleep 1
  if grep -q -i "listening\|serving" "$O/dist-daemon.log"; then break; fi
done
T dist_daemon_info 30 "$top/bin/cuzk" client --addr "127.0.0.1:$port" status
kill -TERM $dpid; wait $dpid; echo "daemon rc=$?" >> "$O/summary.txt"
