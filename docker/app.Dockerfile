# The papersearch application image: the webapp (gunicorn), papersearch-admin (the indexer) and
# `python -m papersearch.stack_setup`. Build context: the repository root.
#
#   docker build -f docker/app.Dockerfile -t papersearch/app:0.1.0 .

# --- 1. build the wheel from the sources only ----------------------------------------------------
FROM python:3.11.14-slim-bookworm AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY papersearch ./papersearch
COPY indexer ./indexer
COPY webapp ./webapp
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# --- 2. runtime ----------------------------------------------------------------------------------
FROM python:3.11.14-slim-bookworm
# config/ and .local/ are found through these, not next to the installed package (papersearch/paths.py).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PAPERSEARCH_CONFIG_DIR=/app/config \
    PAPERSEARCH_LOCAL_DIR=/app/.local \
    PAPERSEARCH_BIND=0.0.0.0:8000
RUN groupadd --system --gid 10001 papersearch \
 && useradd --system --uid 10001 --gid papersearch --home-dir /app --no-create-home \
            --shell /usr/sbin/nologin papersearch
COPY --from=wheel /wheels /tmp/wheels
RUN pip install --no-cache-dir /tmp/wheels/*.whl && rm -rf /tmp/wheels
WORKDIR /app
COPY config ./config
COPY indexer/sample ./indexer/sample
# .local holds the indexer's rejects files; compose mounts a named volume here, which starts out
# with this ownership.
RUN mkdir -p /app/.local && chown 10001:10001 /app/.local
USER 10001:10001
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.conf.py", "webapp.wsgi:app"]
