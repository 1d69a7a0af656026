# The reverse proxy in front of the webapp replicas: HAProxy from Debian's packages and docker/haproxy.cfg
# (docs/operations.md "The web tier"). Build context: the repository root.
#
#   docker build -f docker/proxy.Dockerfile -t papersearch/proxy:0.1.0 .
#
# PROXY_BASE_IMAGE: Debian 13 (trixie) — the official debian image, where apt installs haproxy, or a base made
# from Debian packages with haproxy and curl already in it (scripts/build-images.sh), where nothing is fetched.
ARG PROXY_BASE_IMAGE=debian:trixie-slim
FROM ${PROXY_BASE_IMAGE}
RUN if ! command -v haproxy >/dev/null || ! command -v curl >/dev/null; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy curl \
      && rm -rf /var/lib/apt/lists/*; \
    fi
COPY docker/haproxy.cfg /etc/haproxy/haproxy.cfg
# The configuration is checked when the image is built.
RUN haproxy -c -q -f /etc/haproxy/haproxy.cfg
USER haproxy
EXPOSE 8080 8443
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
