#!/usr/bin/env bash
# New webapp containers one at a time, behind the proxy, without a failed search (docs/operations.md
# "The web tier"): after a rebuilt image, a changed .env or to clear a stuck replica.
#
#   scripts/rolling-restart.sh [COMPOSE_OPTION ...]     e.g. -p papersearch --env-file .env
#
# For each running replica: one more is started from the current image and settings (`up --scale N+1
# --no-recreate`), and once its healthcheck passes (/healthz) and the proxy has had time to find and check it (its DNS
# hold and two checks, docker/haproxy.cfg), the old one is stopped — SIGTERM, so gunicorn finishes what it
# is serving and the proxy sends the rest elsewhere — and removed. The replica count is the same at the end.
# Environment: DOCKER (default docker), HEALTH_TIMEOUT (seconds a new replica may take, default 180).
# Exit status: 0 every replica replaced; 1 a new one did not become healthy (the old ones still serve).
set -euo pipefail
cd "$(dirname "$0")/.."
DOCKER=${DOCKER:-docker}
timeout=${HEALTH_TIMEOUT:-180}
compose=("$DOCKER" compose "$@")
started=$(date +%s)
say() { echo "rolling-restart: $1 ($(( $(date +%s) - started )) s)"; }

mapfile -t old < <("${compose[@]}" ps -q webapp)
[ "${#old[@]}" -gt 0 ] || { echo "rolling-restart: no webapp replica is running" >&2; exit 1; }
say "${#old[@]} replicas to replace"
for id in "${old[@]}"; do
  mapfile -t before < <("${compose[@]}" ps -q webapp)
  "${compose[@]}" up -d --no-deps --no-recreate --scale "webapp=$(( ${#before[@]} + 1 ))" webapp >/dev/null 2>&1
  mapfile -t after < <("${compose[@]}" ps -q webapp)
  new=""
  for candidate in "${after[@]}"; do
    [[ " ${before[*]} " == *" $candidate "* ]] || new=$candidate
  done
  [ -n "$new" ] || { echo "rolling-restart: no new replica started" >&2; exit 1; }
  deadline=$(( $(date +%s) + timeout ))
  # The service's own healthcheck (docker-compose.yml: /healthz every 5 s) says when it serves.
  until [ "$("$DOCKER" inspect -f '{{.State.Health.Status}}' "$new" 2>/dev/null)" = healthy ]; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "rolling-restart: new replica ${new:0:12} not healthy after $timeout s; old ones left running" >&2
      exit 1
    fi
    sleep 1
  done
  sleep 5  # the proxy: DNS hold 2 s, then rise 2 checks 1 s apart
  "$DOCKER" stop -t 30 "$id" >/dev/null
  "$DOCKER" rm "$id" >/dev/null
  say "replaced ${id:0:12} by ${new:0:12}"
done
say "done: ${#old[@]} replicas replaced"
