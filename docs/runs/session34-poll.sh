#!/usr/bin/env bash
# session26-poll.sh with the groth16 GPU test log (g16.log) packed too:
# waits for the background bench $TAG until its .err ends with rc= or
# ${UNTIL:-480} s of this call have passed, then packs what there is into
# $O/s26.tgz. On the warm machine:
#   TAG=snapr UNTIL=540 bash gpu-bundle-s34/session34-poll.sh
[ -n "${HERE:-}" ] || . "$(dirname "$0")/lib.sh"
W=/tmp/s26
TAG=${TAG:-a}
while ! grep -q '^rc=' $W/b32-$TAG.err 2>/dev/null; do
  [ "$(left ${UNTIL:-480})" -lt 0 ] && break
  sleep 5
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
mkdir -p $W/pack
cp $W/params.log $W/g16.log $W/b32-* $W/tl32-* $W/mon-* "$O"/*.txt $W/pack/ 2>/dev/null
tar czf "$O/s26.tgz" -C $W/pack .
grep -a -E "^test result|FAILED|panicked|^rc=" $W/g16.log 2>/dev/null
grep -a -E "rc=" $W/params.log $W/b32-*.err 2>/dev/null
finish 2>/dev/null
