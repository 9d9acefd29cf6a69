#!/usr/bin/env bash
# Sourced by session29-run*.sh with NI set to a test sector size: makes
# an NI-PoRep test sector (parameters by cuzk's GPU generator, the TEST
# SnarkPack SRS), proves it on the GPU (`prove porep` checks the proof
# with filecoin-proofs' verifier before writing it), verifies it again,
# and expects a copy with one flipped byte to be rejected.
cuzk=$W/cuzk
T "ni_testdata_$NI" 300 $cuzk testdata porep --ni --sector-size "$NI" --generator cuzk-gpu --dir $W/tdni
c1_from_log
export CUZK_R1CS_CACHE=$W/r1cs
T "ni_prove_$NI" 300 $cuzk prove porep --c1 "$C1" --prover-id "$PID" --sector-id "$SID" --param-cache "$P2" --out $W/ni-$NI.proof --backend gpu
T "ni_verify_$NI" 120 $cuzk verify porep --c1 "$C1" --proof $W/ni-$NI.proof --prover-id "$PID" --sector-id "$SID" --param-cache "$P2"
ls -l $W/ni-$NI.proof >> "$O/log.txt" 2>&1
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[len(b)//2]^=1; open(sys.argv[2],'wb').write(b)" $W/ni-$NI.proof $W/ni-$NI.flipped
T "ni_verify_flipped_${NI}_expect_rc1" 120 $cuzk verify porep --c1 "$C1" --proof $W/ni-$NI.flipped --prover-id "$PID" --sector-id "$SID" --param-cache "$P2"
