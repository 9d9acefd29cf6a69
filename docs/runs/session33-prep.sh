#!/usr/bin/env bash
# Sourced by the session33 device scripts: lib.sh, then the tarball in
# $HERE/dist/ unpacked (session30-dist-unpack.sh) and its cuzk copied
# into W=/tmp/s26, the working directory from then on.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
W=/tmp/s26
mkdir -p $W
. "$HERE/session30-dist-unpack.sh"
cp "$top/bin/cuzk" $W/
cd $W
