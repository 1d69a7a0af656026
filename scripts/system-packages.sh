#!/usr/bin/env bash
# Debian packages the project needs beyond a fresh machine: Maven (fetches Elasticsearch and builds the
# analysis plugin; on Debian 12 it brings OpenJDK 17, too old for Elasticsearch: `papersearch-node java`
# finds or installs a Java 21+, see provisioning/localnode/java.py); with --test also chromium (browser
# tests). Compose v2, which validates the compose files, comes from scripts/compose-v2.sh (Debian 12's
# docker-compose package is 1.29 and cannot read them). Installs only what is missing.
set -euo pipefail

want=()
command -v mvn >/dev/null 2>&1 || want+=(maven)
command -v runuser >/dev/null 2>&1 || want+=(util-linux)
if [ "${1:-}" = "--test" ]; then
  [ -x /usr/bin/chromium ] || want+=(chromium fonts-noto-cjk)
  # Playwright's own node driver links libatomic, which a minimal Debian 12 lacks.
  ldconfig -p | grep -q 'libatomic\.so\.1 ' || want+=(libatomic1)
  # The deploy tests' self-signed certificate for the proxy's TLS (tests/deploy/test_web_tier.py).
  command -v openssl >/dev/null 2>&1 || want+=(openssl)
fi
[ ${#want[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "missing packages: ${want[*]} — install them with: sudo apt-get install -y ${want[*]}" >&2
  exit 1
fi
echo "installing: ${want[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
