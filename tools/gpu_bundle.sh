#!/usr/bin/env bash
# Packs what tools/gpu_check.sh runs for a GPU machine that has the CUDA toolkit and a Python
# with PyTorch but no Bazel and none of Debian's libraries (the lent device machines): the CUDA
# test binaries and the commands they call, laid out as under bazel-bin so that their runpaths
# and the tests' workspace-relative paths hold once the bundle is unpacked over a checkout, plus
# every shared library they load beyond glibc and libstdc++ (in .gpu_libs/) and the system headers
# the kernels' C compiles include (in .gpu_include/). Then, there:
#   tar -xJf BUNDLE && tools/gpu_check.sh --bundled
# Usage: tools/gpu_bundle.sh OUT.tar.xz [bazel options, e.g. -c opt]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(readlink -f "${1:?usage: tools/gpu_bundle.sh OUT.tar.xz [bazel options]}")
shift
. tools/gpu_targets.sh
bazel build "$@" "${gpu_test_targets[@]}" "${gpu_tool_targets[@]}"
bin=$(bazel info "$@" bazel-bin)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# The test executables (listed in .gpu_tests for gpu_check.sh --bundled), the tools, and the
# built commands the shell tests run.
query=$(printf ' + %s' "${gpu_test_targets[@]}")
tests=()
for t in $(bazel query "tests(${query# + })" 2>/dev/null); do
  t=${t#//}
  tests+=("${t/://}")
done
files=("${tests[@]}" cli/tessera bench/cuda_dense)
# sh_tests' data: the built commands they run.
files+=(deploy/tessera-run deploy/run_model_example deploy/libtessera_model.so)
elves=()
for f in "${files[@]}"; do
  mkdir -p "$stage/$(dirname "$f")"
  cp -L "$bin/$f" "$stage/$f"
  [[ "$(head -c 4 "$bin/$f" | tail -c 3)" == ELF ]] && elves+=("$bin/$f")
done

# Shared libraries: Bazel's own (under _solib_*, where the runpaths look) and the system's.
mkdir -p "$stage/.gpu_libs"
core='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s)'
for e in "${elves[@]}"; do
  ldd "$e" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  case "$path" in
    */_solib_*)
      rel="_solib_${path##*/_solib_}"
      mkdir -p "$stage/$(dirname "$rel")"
      cp -L "$path" "$stage/$rel" ;;
    *)
      [[ "$name" =~ $core ]] || cp -L "$path" "$stage/.gpu_libs/$name" ;;
  esac
done
# Headers the kernels' C compiles include from the system (gpu_check.sh --bundled adds them to CPATH).
mkdir -p "$stage/.gpu_include"
cp -r /usr/include/dlpack "$stage/.gpu_include/"
printf '%s\n' "${tests[@]}" >"$stage/.gpu_tests"
tar -C "$stage" -cJf "$out" .
echo "gpu_bundle: $out ($(du -h "$out" | cut -f1), ${#files[@]} files, $(ls "$stage/.gpu_libs" | wc -l) system libraries)"
