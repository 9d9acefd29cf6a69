#!/usr/bin/env bash
# Device run 2 of session 22: waits on and collects the 32 GiB bench
# session22-run1.sh started (the machine must still be warm).
. "$(dirname "$0")/lib.sh"
. "$HERE/session22-collect.sh"
