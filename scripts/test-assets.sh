#!/usr/bin/env bash
# Files only the tests use, fetched once by `make setup-test` (never at test time, never served by the
# webapp): axe-core from the npm registry, which the browser tests inject into the pages they check.
# npm checks the tarball against the registry's integrity hash. Installs npm (Debian) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

AXE_VERSION=4.14.1
dest=.local/test-assets
[ -f "$dest/axe.min.js" ] && [ "$(cat "$dest/axe.version" 2>/dev/null)" = "$AXE_VERSION" ] && exit 0

if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "npm is missing (needed once to fetch axe-core): sudo apt-get install -y npm" >&2
    exit 1
  fi
  echo "installing: npm"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetching axe-core $AXE_VERSION from the npm registry"
(cd "$tmp" && npm pack --silent "axe-core@$AXE_VERSION" >/dev/null)
tar -xzf "$tmp/axe-core-$AXE_VERSION.tgz" -C "$tmp"
mkdir -p "$dest"
cp "$tmp/package/axe.min.js" "$dest/axe.min.js"
cp "$tmp/package/LICENSE" "$dest/axe-core.LICENSE"
echo "$AXE_VERSION" > "$dest/axe.version"
