#!/bin/bash
# Entry point of the Elasticsearch stand-in image (docker/elasticsearch-base.Dockerfile), following the
# official image's documented conventions:
# - NAME_FILE=path sets NAME to the file's content (e.g. ELASTIC_PASSWORD_FILE=/run/secrets/…);
# - ELASTIC_PASSWORD becomes bootstrap.password in config/elasticsearch.keystore when the keystore has
#   none yet (the keystore lives in the container, so a new container takes the current value);
# - every environment variable whose name looks like a setting (lowercase, with a dot, e.g.
#   discovery.type) is passed as -Ename=value;
# - `eswrapper` (the default command) starts Elasticsearch; any other command runs as given.
set -euo pipefail
cd /usr/share/elasticsearch

while IFS= read -r name; do
  target=${name%_FILE}
  file=${!name}
  if [ ! -r "$file" ]; then
    echo "docker-entrypoint: $name=$file is not readable" >&2
    exit 1
  fi
  export "$target=$(cat "$file")"
  unset "$name"
done < <(compgen -e | grep '_FILE$' || true)

if [ "${1:-eswrapper}" != "eswrapper" ]; then
  exec "$@"
fi
shift || true

if [ -n "${ELASTIC_PASSWORD:-}" ]; then
  [ -f config/elasticsearch.keystore ] || bin/elasticsearch-keystore create >/dev/null
  if ! bin/elasticsearch-keystore list | grep -qx 'bootstrap.password'; then
    printf '%s' "$ELASTIC_PASSWORD" | bin/elasticsearch-keystore add -x -f bootstrap.password
  fi
fi
unset ELASTIC_PASSWORD

# Names with dots are no shell variables: read them from the environment itself.
settings=()
while IFS= read -r -d '' pair; do
  name=${pair%%=*}
  if [[ $name =~ ^[a-z0-9_]+(\.[a-z0-9_]+)+$ ]]; then
    settings+=("-E$name=${pair#*=}")
  fi
done < <(env -0)
exec bin/elasticsearch "${settings[@]}" "$@"
