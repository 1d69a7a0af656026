#!/usr/bin/env bash
# Every image of the Docker stack from package registries alone — no Docker Hub, no Elastic registry
# (`make images`; docs/operations.md "Building without Docker Hub"):
#   1. Debian bases made with mmdebstrap (scripts/debian-image.sh, cached):
#        $PYTHON_IMAGE   bookworm + python3, python3-venv                (the app's base)
#        $MAVEN_IMAGE    trixie + openjdk-21-jdk-headless, maven         (builds the plugin)
#        $JRE_IMAGE      trixie + openjdk-21-jre-headless, curl          (runs Elasticsearch)
#        $PROXY_BASE_IMAGE trixie + haproxy, curl                         (the reverse proxy)
#        $REDIS_BASE_IMAGE bookworm + redis-server                        (the shared rate-limit counts)
#   2. $ELASTICSEARCH_IMAGE: Elasticsearch from Maven Central (the local node's integ-test-zip) on the
#      JRE base (docker/elasticsearch-base.Dockerfile);
#   3. the stack's own images, papersearch/elasticsearch:<version> (the plugin installed),
#      papersearch/app:<version>, papersearch/proxy:<version> and papersearch/redis:<version>, from
#      docker/*.Dockerfile with those bases as build arguments.
# Docker's layer cache makes a second run quick. Starts a Docker engine when none answers (as root).
#
#   scripts/build-images.sh
#
# Environment (each with its default):
#   DEBIAN_MIRROR          http://deb.debian.org/debian
#   PIP_INDEX_URL          https://pypi.org/simple
#   MAVEN_MIRROR           https://repo.maven.apache.org/maven2
#   PAPERSEARCH_CA_BUNDLE  /etc/ssl/certs/ca-certificates.crt when it exists ("none": no extra CAs): PEM
#                          certificates trusted by every build step (apt, pip, Maven) for networks that
#                          inspect TLS; a build secret for pip, in the Debian bases' system store
#   PYTHON_IMAGE           papersearch-base/python:bookworm
#   MAVEN_IMAGE            papersearch-base/maven:trixie
#   JRE_IMAGE              papersearch-base/jre:trixie
#   PROXY_BASE_IMAGE       papersearch-base/haproxy:trixie
#   REDIS_BASE_IMAGE       papersearch-base/redis:bookworm
#   ELASTICSEARCH_IMAGE    papersearch-base/elasticsearch:<version of config/node.toml>
#   DOCKER                 the docker CLI (default /usr/bin/docker when present: its builder has BuildKit)
# Exit status: 0 every image built; 1 a step failed (its output says which).
set -euo pipefail
cd "$(dirname "$0")/.."

export DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
es_version=$(sed -n 's/^version *= *"\(.*\)".*/\1/p' config/node.toml)
app_version=$(sed -n 's/^version *= *"\(.*\)".*/\1/p' pyproject.toml | head -n 1)
export DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PIP_INDEX_URL=${PIP_INDEX_URL:-https://pypi.org/simple}
MAVEN_MIRROR=${MAVEN_MIRROR:-https://repo.maven.apache.org/maven2}
bundle=${PAPERSEARCH_CA_BUNDLE:-$([ -s /etc/ssl/certs/ca-certificates.crt ] && echo /etc/ssl/certs/ca-certificates.crt || echo none)}
[ "$bundle" = none ] && bundle=""
export PAPERSEARCH_CA_BUNDLE=$bundle
PYTHON_IMAGE=${PYTHON_IMAGE:-papersearch-base/python:bookworm}
MAVEN_IMAGE=${MAVEN_IMAGE:-papersearch-base/maven:trixie}
JRE_IMAGE=${JRE_IMAGE:-papersearch-base/jre:trixie}
PROXY_BASE_IMAGE=${PROXY_BASE_IMAGE:-papersearch-base/haproxy:trixie}
REDIS_BASE_IMAGE=${REDIS_BASE_IMAGE:-papersearch-base/redis:bookworm}
ELASTICSEARCH_IMAGE=${ELASTICSEARCH_IMAGE:-papersearch-base/elasticsearch:$es_version}

started=$(date +%s)
step() { echo "build-images: $1 ($(( $(date +%s) - started )) s)"; }

scripts/docker-engine.sh

step "Debian bases"
# The first alone (it installs mmdebstrap when missing: one apt at a time), the others side by side: each
# is mostly waiting for the mirror.
scripts/debian-image.sh "$PYTHON_IMAGE" bookworm python3 python3-venv ca-certificates
base_logs=$(mktemp -d /tmp/papersearch-bases.XXXXXX)
base() {  # base LOG NAME SUITE PACKAGE...
  local log=$base_logs/$1
  shift
  scripts/debian-image.sh "$@" >"$log" 2>&1 || { echo "failed" >>"$log"; return 1; }
}
base maven "$MAVEN_IMAGE" trixie openjdk-21-jdk-headless maven ca-certificates ca-certificates-java unzip &
base jre "$JRE_IMAGE" trixie openjdk-21-jre-headless ca-certificates curl &
base proxy "$PROXY_BASE_IMAGE" trixie haproxy curl ca-certificates &
base redis "$REDIS_BASE_IMAGE" bookworm redis-server &
failed=0
for job in $(jobs -p); do wait "$job" || failed=1; done
cat "$base_logs"/maven "$base_logs"/jre "$base_logs"/proxy "$base_logs"/redis
rm -rf "$base_logs"
[ "$failed" -eq 0 ] || { echo "build-images: a Debian base failed (above)" >&2; exit 1; }

build() {  # build TAG DOCKERFILE [--build-arg …]
  local tag=$1 file=$2
  shift 2
  local secret=()
  [ -n "$bundle" ] && secret=(--secret "id=ca_bundle,src=$bundle")
  step "$tag from $file"
  local log
  log=$(mktemp /tmp/papersearch-build.XXXXXX.log)
  if ! DOCKER_BUILDKIT=1 "$DOCKER" build --progress=plain "${secret[@]}" -f "$file" -t "$tag" "$@" . >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "build-images: building $tag failed (whole log: $log)" >&2
    exit 1
  fi
  rm -f "$log"
}
build "$ELASTICSEARCH_IMAGE" docker/elasticsearch-base.Dockerfile --build-arg "ES_VERSION=$es_version" \
  --build-arg "MAVEN_IMAGE=$MAVEN_IMAGE" --build-arg "JRE_IMAGE=$JRE_IMAGE" --build-arg "MAVEN_MIRROR=$MAVEN_MIRROR"
build "papersearch/elasticsearch:$es_version" docker/elasticsearch.Dockerfile --build-arg "ES_VERSION=$es_version" \
  --build-arg "MAVEN_IMAGE=$MAVEN_IMAGE" --build-arg "ELASTICSEARCH_IMAGE=$ELASTICSEARCH_IMAGE" \
  --build-arg "MAVEN_MIRROR=$MAVEN_MIRROR"
build "papersearch/app:$app_version" docker/app.Dockerfile --build-arg "PYTHON_IMAGE=$PYTHON_IMAGE" \
  --build-arg "PIP_INDEX_URL=$PIP_INDEX_URL"
build "papersearch/proxy:$app_version" docker/proxy.Dockerfile --build-arg "PROXY_BASE_IMAGE=$PROXY_BASE_IMAGE"
build "papersearch/redis:$app_version" docker/redis.Dockerfile --build-arg "REDIS_BASE_IMAGE=$REDIS_BASE_IMAGE"
step "done: papersearch/elasticsearch:$es_version, papersearch/{app,proxy,redis}:$app_version"
