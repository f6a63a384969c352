#!/usr/bin/env bash
# Copies a binary and every shared library it loads (as ldd resolves them here) into DEST/bin and
# DEST/lib, leaving out the C library family that every base image has; the container image's
# runtime stage runs the binary from DEST with nothing else installed. The GPU driver's libraries
# (libcuda, libnvidia-ml) are not linked, so they are never copied: the NVIDIA container toolkit
# mounts them from the host at run time. cuBLAS, which the binary opens on first use, is copied.
#   collect-runtime-libs.sh BINARY DEST
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: collect-runtime-libs.sh BINARY DEST" >&2; exit 2; }
binary="$1"
dest="$2"
[ -x "$binary" ] || { echo "collect-runtime-libs: $binary: not an executable file" >&2; exit 1; }
mkdir -p "$dest/bin" "$dest/lib"
cp "$binary" "$dest/bin/"
if ldd "$binary" | grep -q "not found"; then
  echo "collect-runtime-libs: $binary needs libraries this system lacks:" >&2
  ldd "$binary" | grep "not found" >&2
  exit 1
fi
# copy_deps FILE: the shared libraries FILE loads (as ldd resolves them), but the C library family.
copy_deps() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) continue ;;
    esac
    cp -L "$lib" "$dest/lib/"
  done
}
copy_deps "$binary"
# Libraries the binary opens on first use rather than links, which ldd does not list: cuBLAS for
# the CUDA engine (src/engine/cuda/cublas_on_demand.cpp), with what it loads (libcublasLt).
for soname in $(grep -ao 'libcublas\.so\.[0-9][0-9]*' "$binary" | sort -u); do
  path=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
  [ -z "$path" ] && [ -e "/usr/local/cuda/lib64/$soname" ] && path="/usr/local/cuda/lib64/$soname"
  if [ -z "$path" ]; then
    echo "collect-runtime-libs: $binary opens $soname on first use, and this system lacks it" >&2
    exit 1
  fi
  cp -L "$path" "$dest/lib/"
  copy_deps "$path"
done
echo "collect-runtime-libs: $(basename "$binary") and $(ls "$dest/lib" | wc -l) libraries in $dest"
