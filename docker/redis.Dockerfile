# The webapp replicas' shared rate-limit counts: Redis from Debian's packages, in memory only (counts of the
# last minute are not worth a disk). Build context: the repository root.
#
#   docker build -f docker/redis.Dockerfile -t papersearch/redis:0.1.0 .
#
# REDIS_BASE_IMAGE: Debian 12 (bookworm) — the official debian image, where apt installs redis-server, or a
# base made from Debian packages with it already in it (scripts/build-images.sh).
ARG REDIS_BASE_IMAGE=debian:bookworm-slim
FROM ${REDIS_BASE_IMAGE}
RUN if ! command -v redis-server >/dev/null; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
      && rm -rf /var/lib/apt/lists/*; \
    fi
USER redis
EXPOSE 6379
# A password is required (REDIS_PASSWORD_FILE: the redis-key volume, which setup writes; docker-compose.yml):
# it goes into a config file in the container's /tmp, never onto the command line. Protected mode on; the
# only network is the stack's internal `limits` one, which only the replicas share, and no published port.
# No snapshots, no append-only file; keys expire with their windows.
ENV REDIS_PASSWORD_FILE=/run/redis-key/password
CMD ["sh", "-c", "set -eu; umask 077; [ -s \"$REDIS_PASSWORD_FILE\" ] || { echo \"redis: no password in $REDIS_PASSWORD_FILE\" >&2; exit 1; }; printf 'requirepass \"%s\"\\n' \"$(cat \"$REDIS_PASSWORD_FILE\")\" > /tmp/redis.conf; exec redis-server /tmp/redis.conf --bind 0.0.0.0 --protected-mode yes --save '' --appendonly no --maxmemory 64mb --maxmemory-policy volatile-ttl --dir /tmp"]
