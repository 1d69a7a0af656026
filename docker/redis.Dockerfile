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
# Reachable only on the stack's internal `limits` network (docker-compose.yml), so no published port and
# protected mode off; no snapshots, no append-only file; keys expire with their windows.
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no", \
     "--maxmemory", "64mb", "--maxmemory-policy", "volatile-ttl", "--dir", "/tmp"]
