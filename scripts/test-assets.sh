#!/usr/bin/env bash
# Files only the tests use, fetched once by `make setup-test` (never at test time, never served by the
# webapp): axe-core from the npm registry, which the browser tests inject into the pages they check.
# The tarball is checked against the sha512 integrity the registry publishes for that version (what npm
# itself checks); curl and python3 are enough, so a fresh machine needs no npm (on Debian 12 npm and its
# ~300 packages took minutes to install).
set -euo pipefail
cd "$(dirname "$0")/.."

AXE_VERSION=4.14.1
dest=.local/test-assets
[ -f "$dest/axe.min.js" ] && [ "$(cat "$dest/axe.version" 2>/dev/null)" = "$AXE_VERSION" ] && exit 0

registry=${NPM_REGISTRY:-https://registry.npmjs.org}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetching axe-core $AXE_VERSION from the npm registry"
curl -fsS --retry 3 -o "$tmp/meta.json" "$registry/axe-core/$AXE_VERSION"
read -r tarball integrity < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["dist"]; print(d["tarball"], d["integrity"])' "$tmp/meta.json")
curl -fsS --retry 3 -o "$tmp/axe-core-$AXE_VERSION.tgz" "$tarball"
python3 - "$tmp/axe-core-$AXE_VERSION.tgz" "$integrity" <<'PY'
import base64, hashlib, sys
path, integrity = sys.argv[1], sys.argv[2]
algorithm, _, expected = integrity.partition("-")
actual = base64.b64encode(hashlib.new(algorithm, open(path, "rb").read()).digest()).decode()
if algorithm != "sha512" or actual != expected:
    sys.exit(f"test-assets: {path} does not match the registry's integrity {integrity} (got {algorithm}-{actual})")
PY
tar -xzf "$tmp/axe-core-$AXE_VERSION.tgz" -C "$tmp"
mkdir -p "$dest"
cp "$tmp/package/axe.min.js" "$dest/axe.min.js"
cp "$tmp/package/LICENSE" "$dest/axe-core.LICENSE"
echo "$AXE_VERSION" > "$dest/axe.version"
