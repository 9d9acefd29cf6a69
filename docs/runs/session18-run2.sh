#!/usr/bin/env bash
# Device run 2 of session 18: the 32 GiB PoRep bench on "a 16 GiB card":
# gpu-hog holds all but 17 GiB of the H200, the backend's default limit
# (free at start less 1 GiB) is then 16 GiB. Started in the background
# (J = 8, c = 64, gw = 2), polled here and by run 3 on the same warm
# machine. Needs run 1's parameters in /tmp/s18/td32.
. "$(dirname "$0")/lib.sh"
W=/tmp/s18
PD=$W/td32/params
LEAVE=${LEAVE:-17}
cd $W
setsid bash -c "./gpu-hog $LEAVE > $W/hog.log 2>&1 & sleep 5; nvidia-smi --query-gpu=memory.used,memory.free --format=csv >> $W/hog.log; CUZK_R1CS_CACHE=$W/r1cs ./cuzk bench porep --sector-size 32GiB --param-cache $PD -j ${J:-8} -c 64 --gw 2 --backend gpu ${EXTRA:-} --timeline $W/timeline32.jsonl --json > $W/bench32.out 2> $W/bench32.err; echo rc=\$? >> $W/bench32.err; pkill gpu-hog" < /dev/null > /dev/null 2>&1 &
while ! grep -q '^rc=' $W/bench32.err 2>/dev/null; do
  [ "$(left 570)" -lt 0 ] && break
  sleep 5
done
cp $W/hog.log "$O/" 2>/dev/null
tail -c 100000 $W/bench32.err > "$O/bench32-sofar.err" 2>/dev/null
finish
