#!/usr/bin/env bash
# Device run 3+ of session 21: waits on and collects the 32 GiB bench
# session21-run2.sh started (the machine must still be warm).
. "$(dirname "$0")/lib.sh"
. "$HERE/session21-collect.sh"
