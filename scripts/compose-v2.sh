#!/usr/bin/env bash
# Make sure `docker compose` is Compose v2 (the documented CLI). Idempotent. When `docker compose version`
# does not answer v2, builds github.com/docker/compose/v2 at $COMPOSE_VERSION from the Go module proxy
# (needs Go ≥ 1.24; the Go module and build caches make a second build quick), keeps the binary in
# .local/bin/docker-compose and installs it as the docker CLI plugin ~/.docker/cli-plugins/docker-compose.
# Measured cold (empty Go caches, 2 busy cores): about 11 minutes, ~500 MB of modules; from the cached
# binary: instant. Prints the path of a compose v2 binary on its last line.
#
#   scripts/compose-v2.sh
#
# Environment:
#   COMPOSE_VERSION   default v2.40.3
#   DOCKER            the docker CLI (default: docker)
#   GOPROXY           as Go reads it (default https://proxy.golang.org)
# Exit status: 0 compose v2 is there; 1 it could not be had.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${COMPOSE_VERSION:-v2.40.3}
DOCKER=${DOCKER:-docker}
plugin_dir=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
local_bin=.local/bin/docker-compose

is_v2() { "$@" version --short 2>/dev/null | grep -Eq '^v?2\.'; }

if is_v2 "$DOCKER" compose; then
  echo "compose-v2: $("$DOCKER" compose version --short) (docker compose)" >&2
  command -v "$plugin_dir/docker-compose" 2>/dev/null || echo "$DOCKER compose"
  exit 0
fi
if [ ! -x "$local_bin" ] || ! "$local_bin" version --short 2>/dev/null | grep -qx "${version#v}"; then
  command -v go >/dev/null 2>&1 || [ ! -x /usr/local/go/bin/go ] || PATH=/usr/local/go/bin:$PATH
  if ! command -v go >/dev/null 2>&1; then
    echo "compose-v2: no Compose v2 and no Go to build it; install Go or Debian's docker-compose v2 (trixie)" >&2
    exit 1
  fi
  echo "compose-v2: building docker compose $version from the Go module proxy (cold: ~11 min) …" >&2
  started=$(date +%s)
  # Built inside the module's own directory so that its go.mod (replace/exclude directives) applies;
  # `go install pkg@version` refuses modules with exclude directives.
  dir=$(go mod download -json "github.com/docker/compose/v2@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "compose-v2: go mod download of github.com/docker/compose/v2@$version failed" >&2; exit 1; }
  mkdir -p "$(dirname "$local_bin")"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$version" \
      -o "$OLDPWD/$local_bin.tmp" ./cmd)
  mv "$local_bin.tmp" "$local_bin"
  echo "compose-v2: built in $(( $(date +%s) - started )) s" >&2
fi
mkdir -p "$plugin_dir"
cp "$local_bin" "$plugin_dir/docker-compose.tmp" && mv "$plugin_dir/docker-compose.tmp" "$plugin_dir/docker-compose"
if is_v2 "$DOCKER" compose; then
  echo "compose-v2: $("$DOCKER" compose version --short) installed as $plugin_dir/docker-compose" >&2
else
  echo "compose-v2: the binary works standalone as $local_bin" >&2
fi
echo "$PWD/$local_bin"
