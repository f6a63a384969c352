#!/usr/bin/env bash
# Builds the container image (Dockerfile) with podman and checks it on the CPU backend: the
# original's command line writes a valid energy.json into a mounted output directory.
#   container-image.sh                   compile inside the image's build stage (many minutes)
#   container-image.sh --prebuilt BINARY  the runtime stage around an already-built binary (quick)
# The base image is BASE (default localhost/debian:bookworm-min, made here from Debian's packages
# with debootstrap when it is missing, as no image registry may be reachable); the image is tagged
# IMAGE (default localhost/ecocompute). Needs podman, runc and debootstrap
# (`scripts/install-deps.sh container`) and root for debootstrap.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${BASE:-localhost/debian:bookworm-min}"
image="${IMAGE:-localhost/ecocompute}"
prebuilt=""
if [ "${1:-}" = "--prebuilt" ]; then
  [ $# -eq 2 ] || { echo "usage: container-image.sh [--prebuilt BINARY]" >&2; exit 2; }
  prebuilt="$2"
elif [ $# -ne 0 ]; then
  echo "usage: container-image.sh [--prebuilt BINARY]" >&2
  exit 2
fi
for tool in podman runc; do
  command -v "$tool" >/dev/null || { echo "container-image: $tool is missing (scripts/install-deps.sh container)" >&2; exit 1; }
done

# The flags that work in a sandbox without cgroup delegation or rlimit rights (crun refuses both):
# runc, cgroupfs, chroot isolation for RUN steps; no ulimits or pids limit set by podman.
if [ ! -f /etc/containers/containers.conf ] && [ "$(id -u)" -eq 0 ]; then
  mkdir -p /etc/containers
  printf '[containers]\ndefault_ulimits = []\npids_limit = 0\n' >/etc/containers/containers.conf
fi
P=(podman --cgroup-manager=cgroupfs --runtime runc)

if [ "$base" = localhost/debian:bookworm-min ] && ! "${P[@]}" image exists "$base"; then
  command -v debootstrap >/dev/null || { echo "container-image: debootstrap is missing" >&2; exit 1; }
  rootfs="$(mktemp -d)"
  echo "container-image: making $base with debootstrap (about a minute)"
  debootstrap --variant=minbase bookworm "$rootfs" >/dev/null
  tar -C "$rootfs" -c . | "${P[@]}" import - "$base" >/dev/null
  rm -rf "$rootfs"
fi

commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
[ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit-dirty"
args=(--isolation chroot --network host --build-arg "BASE=$base" --build-arg "EC_BUILD_COMMIT=$commit"
      -t "$image" -f "$root/Dockerfile")
if [ -n "$prebuilt" ]; then
  stage="$root/build/container/opt/ecocompute"
  rm -rf "$stage"
  "$root/scripts/collect-runtime-libs.sh" "$prebuilt" "$stage"
  args+=(--build-arg BINARY=prebuilt --target runtime)
fi
start=$(date +%s)
"${P[@]}" build "${args[@]}" "$root"
echo "container-image: built $image in $(( $(date +%s) - start )) s"

# The check: the original's docker-run line on the tiny model, CPU backend, report in a mount.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${P[@]}" run --rm "$image" --version
"${P[@]}" run --rm -v "$out:/workspace/outputs" "$image" \
  --model tiny-llama --precision INT8 --output_dir /workspace/outputs \
  --tokens 4 --iterations 1 --warmup 0 --backend cpu --no-quality
[ -s "$out/energy.json" ] || { echo "container-image: no energy.json in the mounted directory" >&2; exit 1; }
"${P[@]}" run --rm -v "$out:/workspace/outputs" "$image" validate /workspace/outputs/energy.json
# The MLCube task's line: `run` with the original's parameters file and output directory.
mkdir -p "$out/params" "$out/task"
printf 'model_name: tiny-qwen2\nprecision: NF4\ntokens: 4\niterations: 1\nwarmup: 0\nquality_probe: false\n' \
  >"$out/params/energy_params.yaml"
"${P[@]}" run --rm -v "$out:/workspace/io" "$image" run --parameters_file=/workspace/io/params/energy_params.yaml \
  --output_dir=/workspace/io/task --backend cpu
"${P[@]}" run --rm -v "$out:/workspace/io" "$image" validate /workspace/io/task/energy.json
echo "container-image: OK ($image: the original's command line and its MLCube task wrote valid reports)"
