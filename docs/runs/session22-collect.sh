# Sourced by session22-run1.sh and session22-poll.sh: waits for the
# background 32 GiB bench (until it prints rc= or the call's time is
# nearly up), then copies what it has so far to $O.
W=/tmp/s22
while ! grep -q '^rc=' $W/b32.err 2>/dev/null; do
  [ "$(left 565)" -lt 0 ] && break
  sleep 5
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
cp $W/params.log "$O/" 2>/dev/null
tail -c 200000 $W/b32.err > "$O/b32.err" 2>/dev/null
cp $W/b32.out "$O/b32.json" 2>/dev/null
[ -f $W/tl32.jsonl ] && gzip -c $W/tl32.jsonl > "$O/tl32.jsonl.gz"
grep -c . $W/tl32.jsonl >> "$O/log.txt" 2>/dev/null
finish 2>/dev/null
