#!/bin/sh
# Entry point of the papersearch app image: each readable file /run/secrets/NAME whose NAME is a variable
# name (compose `secrets:`, e.g. ES_PASSWORD) becomes the environment variable NAME of the command,
# unless the environment already sets it; then the command runs in this process (exec).
# The values never appear in the container's configuration (`docker inspect`).
set -eu
dir=${PAPERSEARCH_SECRETS_DIR:-/run/secrets}
if [ -d "$dir" ]; then
  for file in "$dir"/*; do
    [ -f "$file" ] && [ -r "$file" ] || continue
    name=$(basename "$file")
    case "$name" in *[!A-Z0-9_]* | [0-9]*) continue ;; esac
    if eval "[ -z \"\${$name+set}\" ]"; then
      value=$(cat "$file")
      export "$name=$value"
    fi
  done
fi
exec "$@"
