# The papersearch application image: the webapp (gunicorn), papersearch-admin (the indexer) and
# `python -m provisioning.stack_setup`. Build context: the repository root.
#
#   docker build -f docker/app.Dockerfile -t papersearch/app:0.1.0 .
#
# PYTHON_IMAGE is any Debian-like image with python3 (3.11+) and its venv module: the official
# python:…-slim image by default, or a base made from Debian packages (scripts/build-images.sh,
# docs/operations.md "Building without Docker Hub"). PIP_INDEX_URL is the PyPI mirror. An extra CA
# bundle for networks that inspect TLS comes as the build secret `ca_bundle` (BuildKit), never a layer.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

# --- 1. build the wheel from the sources only ----------------------------------------------------
FROM ${PYTHON_IMAGE} AS wheel
ARG PIP_INDEX_URL=https://pypi.org/simple
WORKDIR /src
COPY pyproject.toml README.md ./
COPY papersearch ./papersearch
COPY provisioning ./provisioning
COPY indexer ./indexer
COPY webapp ./webapp
RUN --mount=type=secret,id=ca_bundle --mount=type=cache,target=/root/.cache/pip \
    if [ -s /run/secrets/ca_bundle ]; then export PIP_CERT=/run/secrets/ca_bundle; fi \
 && python3 -m venv /opt/build \
 && PIP_INDEX_URL="${PIP_INDEX_URL}" /opt/build/bin/pip wheel --no-deps --wheel-dir /wheels .

# --- 2. runtime ----------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}
ARG PIP_INDEX_URL=https://pypi.org/simple
# config/ and .local/ are found through these, not next to the installed package (papersearch/paths.py).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/app \
    PAPERSEARCH_CONFIG_DIR=/app/config \
    PAPERSEARCH_LOCAL_DIR=/app/.local \
    PAPERSEARCH_BIND=0.0.0.0:8000
RUN groupadd --system --gid 10001 papersearch \
 && useradd --system --uid 10001 --gid papersearch --home-dir /app --no-create-home \
            --shell /usr/sbin/nologin papersearch
COPY --from=wheel /wheels /tmp/wheels
# [redis]: the replicas' shared rate-limit counts (docker-compose.yml `redis`).
RUN --mount=type=secret,id=ca_bundle --mount=type=cache,target=/root/.cache/pip \
    if [ -s /run/secrets/ca_bundle ]; then export PIP_CERT=/run/secrets/ca_bundle; fi \
 && python3 -m venv /opt/venv \
 && PIP_INDEX_URL="${PIP_INDEX_URL}" /opt/venv/bin/pip install "$(ls /tmp/wheels/*.whl)[redis]" \
 && rm -rf /tmp/wheels
COPY docker/app-entrypoint.sh /usr/local/bin/papersearch-entrypoint
WORKDIR /app
COPY config ./config
COPY indexer/sample ./indexer/sample
# .local holds the indexer's rejects files (compose mounts a named volume here, which starts out with
# this ownership); /realm is where the setup service writes the file realm (a volume shared with es);
# /app/keys the webapp's signing secret (the web-key volume: setup writes it, the replicas read it), and
# /app/redis-key the rate-limit Redis's password (the redis-key volume: the same, and Redis reads it).
RUN chmod 0755 /usr/local/bin/papersearch-entrypoint \
 && mkdir -p /app/.local /app/keys /app/redis-key /realm \
 && chown 10001:10001 /app/.local /app/keys /app/redis-key \
 && chmod 0700 /app/keys /app/redis-key \
 && chown 10001:0 /realm && chmod 2750 /realm
USER 10001:10001
EXPOSE 8000
# Secrets mounted as files (/run/secrets/NAME, compose `secrets:`) become environment variables of the
# command only, so they never show in `docker inspect`.
ENTRYPOINT ["papersearch-entrypoint"]
CMD ["gunicorn", "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"]
