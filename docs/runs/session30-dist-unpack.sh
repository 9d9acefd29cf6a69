#!/usr/bin/env bash
# Sourced: unpacks the tarball in $HERE/dist/ into /tmp/dist and sets top
# to its folder.
D=/tmp/dist
rm -rf $D && mkdir -p $D
tb=$(ls "$HERE"/dist/cuzk-*-cuda*.tar.gz | head -1)
T dist_unpack 60 tar xzf "$tb" -C $D
top=$(ls -d $D/cuzk-*/ | head -1)
ls -lR "$top" >> "$O/log.txt" 2>&1
