#!/bin/sh
echo "coverage is not supported in Tessera's offline build" >&2
exit 1
