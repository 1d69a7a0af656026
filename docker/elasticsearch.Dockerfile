# Elasticsearch with the papersearch analysis plugin (plugin/) installed.
# Build context: the repository root (docker compose does this; see docs/operations.md).
#
#   docker build -f docker/elasticsearch.Dockerfile -t papersearch/elasticsearch:9.5.4 .
#
# ES_VERSION must equal config/node.toml's version and LUCENE_VERSION the Lucene that this
# Elasticsearch ships in lib/ (the plugin's descriptor pins the exact Elasticsearch version and the
# installer refuses any other); tests/unit/test_deploy.py checks both.
ARG ES_VERSION=9.5.4
ARG LUCENE_VERSION=10.5.1

# --- 1. build the plugin zip (its unit tests run as part of `package`) ---------------------------
FROM maven:3.9.11-eclipse-temurin-21 AS plugin
ARG ES_VERSION
ARG LUCENE_VERSION
WORKDIR /build
COPY plugin/pom.xml ./pom.xml
COPY plugin/src ./src
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q -Delasticsearch.version=${ES_VERSION} -Dlucene.version=${LUCENE_VERSION} package \
 && test -f target/papersearch-analysis.zip

# --- 2. the official image plus the plugin -------------------------------------------------------
FROM docker.elastic.co/elasticsearch/elasticsearch:${ES_VERSION}
ARG ES_VERSION
ARG LUCENE_VERSION
LABEL org.opencontainers.image.title="papersearch-elasticsearch" \
      org.opencontainers.image.description="Elasticsearch ${ES_VERSION} with the papersearch-analysis plugin"
COPY --from=plugin --chown=1000:0 /build/target/papersearch-analysis.zip /tmp/papersearch-analysis.zip
# Fail the build, rather than the node at startup, when the Lucene we compiled against is not this
# node's. The snapshots directory is created here so that a named volume mounted on it starts out
# owned by the elasticsearch user (path.repo, see docs/operations.md).
RUN if [ ! -f "lib/lucene-core-${LUCENE_VERSION}.jar" ]; then \
        echo "LUCENE_VERSION=${LUCENE_VERSION} is not the Lucene of Elasticsearch ${ES_VERSION}:" >&2; \
        ls lib/lucene-core-*.jar >&2; exit 1; \
    fi \
 && bin/elasticsearch-plugin install --batch file:///tmp/papersearch-analysis.zip \
 && bin/elasticsearch-plugin list | grep -qx papersearch-analysis \
 && rm -f /tmp/papersearch-analysis.zip \
 && mkdir -p /usr/share/elasticsearch/snapshots
