#!/usr/bin/env bash
# Debian packages the project needs beyond a fresh machine: Maven (fetches Elasticsearch and builds the
# analysis plugin) and, for the browser tests, chromium. Installs only what is missing; needs root for apt.
set -euo pipefail

want=()
command -v mvn >/dev/null 2>&1 || want+=(maven)
command -v runuser >/dev/null 2>&1 || want+=(util-linux)
if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then want+=(chromium fonts-noto-cjk); fi
[ ${#want[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${want[*]} — install them with: sudo apt-get install -y ${want[*]}" >&2
  exit 1
fi
echo "installing: ${want[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
