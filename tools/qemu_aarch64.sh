#!/bin/sh
# Runs a cross-built aarch64 program under qemu-aarch64 (user mode) with Debian's cross sysroot.
#   tools/qemu_aarch64.sh PROGRAM [ARG...]
# LD_LIBRARY_PATH keeps the C library inside the sysroot: with arm64 multiarch packages installed
# (tools/setup.sh installs them for the aarch64 rpc_server), the host's ld.so.cache would hand the
# sysroot's ld.so the multiarch libc, and that mix hangs at the first thread. Libraries the sysroot
# lacks (arm64 gRPC, protobuf) still come from multiarch.
exec /usr/bin/qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib "$@"
