# shellcheck shell=bash
# An aarch64 program in a root directory that holds nothing of a Linux distribution for it: no
# aarch64 C library, no dynamic loader, no /etc, /proc, /tmp, /system. What a phone's program must
# cope with (its C library is bionic; `adb shell` writes only under /data/local/tmp). The root holds
# the x86 emulator qemu-aarch64 with the host libraries it needs (x86 files: the guest cannot use
# them; qemu-arm too, for 32-bit programs), /bin/sh for the rpc_server's worker script,
# /data/local/tmp, and what the test copies in.
#   . tests/testing/empty_root.sh
#   why=$(empty_root_unavailable) && [ -z "$why" ] || skip ... "$why"
#   empty_root_make DIR
#   cp program DIR/ && empty_root_run DIR /usr/bin/qemu-aarch64 /program ARGS...

# Why an empty root cannot be entered here ("" when it can): chroot needs root, or a user
# namespace (unshare -r) where the kernel allows one.
empty_root_unavailable() {
  [ -x /usr/bin/qemu-aarch64 ] && [ -x /usr/bin/qemu-arm ] ||
    { echo "qemu-aarch64 and qemu-arm (Debian qemu-user) are not installed"; return; }
  if [ "$(id -u)" = 0 ]; then
    /usr/sbin/chroot / true 2>/dev/null && return
  fi
  /usr/bin/unshare -r --root=/ true 2>/dev/null && return
  echo "cannot change the root directory here (not root, and no user namespace: unshare -r fails)"
}

# empty_root_make DIR: the root directory described above.
empty_root_make() {
  local root=$1 file
  mkdir -p "$root/data/local/tmp" "$root/bin"
  for file in /usr/bin/qemu-aarch64 /usr/bin/qemu-arm /bin/sh \
    $(ldd /usr/bin/qemu-aarch64 /usr/bin/qemu-arm /bin/sh | grep -oE '/[^ :]+( |$)' | sort -u); do
    mkdir -p "$root$(dirname "$file")"
    cp -L "$file" "$root$file"
  done
  chmod 1777 "$root/data/local/tmp"
}

# empty_root_run DIR COMMAND...: runs COMMAND (a path inside DIR) with DIR as its root directory,
# in this process's network (loopback addresses reach the host's daemons), killed after
# $EMPTY_ROOT_TIMEOUT seconds (default 300).
empty_root_run() {
  empty_root_command "$1"
  shift
  timeout -s KILL "${EMPTY_ROOT_TIMEOUT:-300}" "${EMPTY_ROOT[@]}" "$@"
}

# empty_root_command DIR: sets the array EMPTY_ROOT to the command that enters DIR, for a daemon
# started in the background (`timeout -s TERM` in front forwards a stop to it).
empty_root_command() {
  if [ "$(id -u)" = 0 ]; then
    EMPTY_ROOT=(/usr/sbin/chroot "$1")
  else
    EMPTY_ROOT=(/usr/bin/unshare -r --root="$1")
  fi
}

# The user a server in the root runs its call worker as: nobody's number under real root (no
# name service in a static program), the namespace's own root otherwise.
empty_root_worker_user() {
  if [ "$(id -u)" = 0 ]; then echo 65534; else echo 0; fi
}
