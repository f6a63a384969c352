#!/usr/bin/env bash
# Copies a binary and every shared library it loads (as ldd resolves them here) into DEST/bin and
# DEST/lib, leaving out the C library family that every base image has; the container image's
# runtime stage runs the binary from DEST with nothing else installed. The GPU driver's libraries
# (libcuda, libnvidia-ml) are not linked, so they are never copied: the NVIDIA container toolkit
# mounts them from the host at run time.
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
ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) continue ;;
  esac
  cp -L "$lib" "$dest/lib/"
done
echo "collect-runtime-libs: $(basename "$binary") and $(ls "$dest/lib" | wc -l) libraries in $dest"
