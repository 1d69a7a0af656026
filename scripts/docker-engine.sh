#!/usr/bin/env bash
# Make sure a Docker engine answers (`docker info`). Idempotent: an engine that answers is left alone.
# As root, installs Debian's docker.io when dockerd is missing, starts dockerd in the background
# (niced, so builds and containers run at low priority; log in $DOCKERD_LOG) and waits for it.
# Not root and no engine: exits 1 saying what to do.
#
#   scripts/docker-engine.sh
#
# Environment:
#   DOCKER          the docker CLI (default: /usr/bin/docker when present, else docker)
#   DOCKERD_LOG     dockerd's log (default /var/log/papersearch-dockerd.log)
#   DOCKERD_NICE    niceness of dockerd and so of every container (default 10)
#   DOCKERD_WAIT    seconds to wait for the engine to answer (default 60)
# Exit status: 0 an engine answers; 1 none could be had.
set -euo pipefail

DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
log=${DOCKERD_LOG:-/var/log/papersearch-dockerd.log}
wait_s=${DOCKERD_WAIT:-60}

answers() { "$DOCKER" info >/dev/null 2>&1; }

if command -v "$DOCKER" >/dev/null 2>&1 && answers; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "docker-engine: no Docker engine answers and this is not root: start one (sudo dockerd &, or" \
       "sudo systemctl start docker) or install it (sudo apt-get install -y docker.io)" >&2
  exit 1
fi
dockerd=$(command -v dockerd || true)
[ -n "$dockerd" ] || [ ! -x /usr/sbin/dockerd ] || dockerd=/usr/sbin/dockerd
if [ -z "$dockerd" ] || ! command -v "$DOCKER" >/dev/null 2>&1; then
  echo "docker-engine: installing docker.io (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  dockerd=/usr/sbin/dockerd
  DOCKER=/usr/bin/docker
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "docker-engine: starting dockerd (nice ${DOCKERD_NICE:-10}; log $log)"
  mkdir -p "$(dirname "$log")"
  # setsid: dockerd outlives this script and the caller's process group.
  setsid nice -n "${DOCKERD_NICE:-10}" "$dockerd" >>"$log" 2>&1 < /dev/null &
fi
for _ in $(seq "$wait_s"); do
  if answers; then
    echo "docker-engine: $("$DOCKER" version --format 'Docker engine {{.Server.Version}}' 2>/dev/null) answers"
    exit 0
  fi
  sleep 1
done
echo "docker-engine: dockerd did not answer within ${wait_s} s; last lines of $log:" >&2
tail -n 20 "$log" >&2 || true
exit 1
