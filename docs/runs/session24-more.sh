#!/usr/bin/env bash
# Session 24's later calls on the same warm machine (within 30 s of the
# last), and the tail of run 1: 32 GiB PoRep at J = ${J:-8} under
# ${LIMIT:-16GiB} ("none": resident) with witness ${WITNESS:-native},
# parameters and record from $W; collects at ${UNTIL:-560} s. E.g.
#   J=8 LIMIT=none bash gpu-bundle-s24/session24-more.sh   (resident steady state)
#   J=8 LIMIT=16GiB bash gpu-bundle-s24/session24-more.sh
[ -n "${HERE:-}" ] || . "$(dirname "$0")/lib.sh"
W=/tmp/s24
cd $W
L=${LIMIT:-16GiB}
tag=j${J:-8}-${L}-${WITNESS:-native}
lim=(--memory-limit "$L"); [ "$L" = none ] && lim=()
setsid bash -c "CUZK_R1CS_CACHE=$W/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $W/td32/params -j ${J:-8} -c 64 --gw 2 --backend gpu ${lim[*]} --witness ${WITNESS:-native} --timeline $W/tl-$tag.jsonl --json > $W/b-$tag.json 2> $W/b-$tag.err; echo rc=\$? >> $W/b-$tag.err" < /dev/null > /dev/null 2>&1 &
while ! grep -q '^rc=' $W/b-$tag.err 2>/dev/null; do
  [ "$(left ${UNTIL:-560})" -lt 0 ] && break
  sleep 5
done
nvidia-smi --query-gpu=memory.used,memory.total,utilization.gpu --format=csv >> "$O/log.txt" 2>&1
tail -c 200000 $W/b-$tag.err > "$O/b-$tag.err" 2>/dev/null
cp $W/b-$tag.json "$O/" 2>/dev/null
[ -f $W/tl-$tag.jsonl ] && gzip -c $W/tl-$tag.jsonl > "$O/tl-$tag.jsonl.gz"
pkill -f "cuzk bench porep" 2>/dev/null
finish 2>/dev/null
