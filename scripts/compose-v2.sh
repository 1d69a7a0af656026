#!/usr/bin/env bash
# Make sure Compose v2 (the documented CLI) is there. Idempotent. When `docker compose version` does not
# answer v2 and no v2 binary is kept in .local/bin/docker-compose, gets one:
#   - with Go: builds github.com/docker/compose/v2 at $COMPOSE_VERSION from the Go module proxy (needs
#     Go ≥ 1.24; measured cold, empty Go caches, 2 busy cores: about 11 minutes, ~500 MB of modules);
#   - without Go (a fresh Debian 12 has none new enough): the binary of Debian's docker-compose package from
#     $COMPOSE_DEBIAN_SUITE (Debian 12's own package is Compose 1.29, which cannot read our files:
#     DECISIONS.md D-067), fetched by apt with private lists, so apt checks
#     the archive's signature and the machine's own package state is not touched; a few seconds.
# The binary is kept in .local/bin/docker-compose and installed as the docker CLI plugin
# ~/.docker/cli-plugins/docker-compose. Prints the compose command on its last line.
#
#   scripts/compose-v2.sh
#
# Environment:
#   COMPOSE_VERSION        for the Go build (default v2.40.3)
#   COMPOSE_FROM           auto (default: go when Go is found, else debian), go or debian
#   COMPOSE_DEBIAN_SUITE   default trixie (Debian 13: docker-compose 2.26)
#   DEBIAN_MIRROR          default http://deb.debian.org/debian
#   DOCKER                 the docker CLI (default: docker)
#   GOPROXY                as Go reads it (default https://proxy.golang.org)
# Exit status: 0 compose v2 is there; 1 it could not be had.
set -euo pipefail
cd "$(dirname "$0")/.."

version=${COMPOSE_VERSION:-v2.40.3}
from=${COMPOSE_FROM:-auto}
suite=${COMPOSE_DEBIAN_SUITE:-trixie}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
DOCKER=${DOCKER:-docker}
plugin_dir=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
local_bin=.local/bin/docker-compose
origin=$local_bin.origin  # how the kept binary was had: "go <version>" or "debian <suite> <version>"

say() { echo "compose-v2: $*" >&2; }
is_v2() { "$@" version --short 2>/dev/null | grep -Eq '^v?2\.'; }

if is_v2 "$DOCKER" compose; then
  say "$("$DOCKER" compose version --short) (docker compose)"
  command -v "$plugin_dir/docker-compose" 2>/dev/null || echo "$DOCKER compose"
  exit 0
fi

build_with_go() {
  say "building docker compose $version from the Go module proxy (cold: ~11 min) …"
  local started dir
  started=$(date +%s)
  # Built inside the module's own directory so that its go.mod (replace/exclude directives) applies;
  # `go install pkg@version` refuses modules with exclude directives.
  dir=$(go mod download -json "github.com/docker/compose/v2@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { say "go mod download of github.com/docker/compose/v2@$version failed"; exit 1; }
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$version" \
      -o "$OLDPWD/$local_bin.tmp" ./cmd)
  echo "go $version" > "$origin"
  say "built in $(( $(date +%s) - started )) s"
}

from_debian() {
  [ -r "$keyring" ] || { say "no $keyring (not Debian?): install Go ≥ 1.24 to build Compose v2"; exit 1; }
  say "$1: taking the docker-compose binary of Debian $suite (Debian 12's own is Compose 1.29) …"
  local tmp deb
  tmp=$(mktemp -d)
  # apt downloads as its sandbox user _apt when run as root.
  chmod 755 "$tmp"
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/etc" "$tmp/deb"
  chmod -R a+rwx "$tmp/lists" "$tmp/cache" "$tmp/deb"
  echo "deb [signed-by=$keyring] $mirror $suite main" > "$tmp/etc/sources.list"
  local apt=(apt-get -q -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
             -o "Dir::Etc::SourceList=$tmp/etc/sources.list" -o "Dir::Etc::SourceParts=$tmp/etc"
             -o "Dir::State::status=/dev/null" -o "Acquire::Languages=none")
  if ! "${apt[@]}" update >"$tmp/apt.log" 2>&1 || ! (cd "$tmp/deb" && "${apt[@]}" download docker-compose) >>"$tmp/apt.log" 2>&1; then
    tail -n 5 "$tmp/apt.log" >&2
    rm -rf "$tmp"
    say "apt could not fetch docker-compose from $mirror $suite"
    exit 1
  fi
  deb=$(ls "$tmp"/deb/docker-compose_*.deb)
  dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/libexec/docker/cli-plugins/docker-compose > "$local_bin.tmp"
  chmod 755 "$local_bin.tmp"
  echo "debian $suite $(basename "$deb")" > "$origin"
  rm -rf "$tmp"
}

kept() {  # the kept binary is v2 and was had the way asked for (a Go build only at $version)
  [ -x "$local_bin" ] && is_v2 "$local_bin" || return 1
  case "$(cat "$origin" 2>/dev/null)" in
    "go $version") [ "$from" != debian ] ;;
    debian*) [ "$from" != go ] ;;
    *) "$local_bin" version --short | grep -qx "${version#v}" ;;  # kept before .origin existed
  esac
}

if ! kept; then
  command -v go >/dev/null 2>&1 || [ ! -x /usr/local/go/bin/go ] || PATH=/usr/local/go/bin:$PATH
  why="COMPOSE_FROM=$from"
  if [ "$from" = auto ]; then
    from=debian why="no Go here"
    command -v go >/dev/null 2>&1 && from=go
  fi
  mkdir -p "$(dirname "$local_bin")"
  case "$from" in
    go) command -v go >/dev/null 2>&1 || { say "COMPOSE_FROM=go but no Go found"; exit 1; }
        build_with_go ;;
    debian) from_debian "$why" ;;
    *) say "COMPOSE_FROM must be auto, go or debian (got '$from')"; exit 1 ;;
  esac
  mv "$local_bin.tmp" "$local_bin"
  is_v2 "$local_bin" || { say "$local_bin does not answer as Compose v2"; exit 1; }
fi
mkdir -p "$plugin_dir"
cp "$local_bin" "$plugin_dir/docker-compose.tmp" && mv "$plugin_dir/docker-compose.tmp" "$plugin_dir/docker-compose"
if is_v2 "$DOCKER" compose; then
  say "$("$DOCKER" compose version --short) installed as $plugin_dir/docker-compose"
else
  say "$("$local_bin" version --short) ($(cat "$origin" 2>/dev/null)) works standalone as $local_bin"
fi
echo "$PWD/$local_bin"
