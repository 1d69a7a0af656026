# Elasticsearch with the papersearch analysis plugin (plugin/) installed.
# Build context: the repository root (docker compose does this; see docs/operations.md).
#
#   docker build -f docker/elasticsearch.Dockerfile -t papersearch/elasticsearch:9.5.4 .
#
# ES_VERSION must equal config/node.toml's version and LUCENE_VERSION the Lucene that this
# Elasticsearch ships in lib/ (the plugin's descriptor pins the exact Elasticsearch version and the
# installer refuses any other); tests/unit/test_deploy_images.py checks both.
# MAVEN_IMAGE (a JDK 21 with Maven) and ELASTICSEARCH_IMAGE (Elasticsearch in /usr/share/elasticsearch,
# run as uid 1000, with the official image's entry point conventions) are the official images by
# default; scripts/build-images.sh builds both from Debian packages and Maven Central instead
# (docs/operations.md "Building without Docker Hub"). MAVEN_MIRROR is the Maven repository (Maven
# trusts the JDK's CA store: the Debian bases carry an extra CA bundle there).
ARG ES_VERSION=9.5.4
ARG LUCENE_VERSION=10.5.1
ARG MAVEN_IMAGE=maven:3.9.11-eclipse-temurin-21
ARG ELASTICSEARCH_IMAGE=docker.elastic.co/elasticsearch/elasticsearch:${ES_VERSION}

# --- 1. build the plugin zip (its unit tests run as part of `package`) ---------------------------
FROM ${MAVEN_IMAGE} AS plugin
ARG ES_VERSION
ARG LUCENE_VERSION
ARG MAVEN_MIRROR=https://repo.maven.apache.org/maven2
WORKDIR /build
COPY docker/maven-settings.sh /usr/local/bin/papersearch-maven-settings
COPY plugin/pom.xml ./pom.xml
COPY plugin/src ./src
RUN --mount=type=cache,target=/root/.m2 \
    sh /usr/local/bin/papersearch-maven-settings "${MAVEN_MIRROR}" > /tmp/settings.xml \
 && mvn -B -q -s /tmp/settings.xml \
        -Delasticsearch.version=${ES_VERSION} -Dlucene.version=${LUCENE_VERSION} package \
 && test -f target/papersearch-analysis.zip

# --- 2. Elasticsearch plus the plugin ----------------------------------------------------------
FROM ${ELASTICSEARCH_IMAGE}
ARG ES_VERSION
ARG LUCENE_VERSION
LABEL org.opencontainers.image.title="papersearch-elasticsearch" \
      org.opencontainers.image.description="Elasticsearch ${ES_VERSION} with the papersearch-analysis plugin"
COPY --from=plugin --chown=1000:0 /build/target/papersearch-analysis.zip /tmp/papersearch-analysis.zip
# Fail the build, rather than the node at startup, when the Lucene we compiled against is not this
# node's. The snapshots directory is created here so that a named volume mounted on it starts out
# owned by the elasticsearch user (path.repo, see docs/operations.md).
# The file realm (users, users_roles, roles.yml) is read from config/papersearch-realm/, a volume the
# setup service writes (provisioning/file_realm.py; DECISIONS.md D-063); Elasticsearch watches the files and reloads them.
RUN if [ ! -f "lib/lucene-core-${LUCENE_VERSION}.jar" ]; then \
        echo "LUCENE_VERSION=${LUCENE_VERSION} is not the Lucene of Elasticsearch ${ES_VERSION}:" >&2; \
        ls lib/lucene-core-*.jar >&2; exit 1; \
    fi \
 && bin/elasticsearch-plugin install --batch file:///tmp/papersearch-analysis.zip \
 && bin/elasticsearch-plugin list | grep -qx papersearch-analysis \
 && rm -f /tmp/papersearch-analysis.zip \
 && mkdir -p /usr/share/elasticsearch/snapshots \
 && for f in users users_roles roles.yml; do ln -sfn "papersearch-realm/$f" "config/$f"; done
# Written by the setup service (uid 10001), read by Elasticsearch (group 0); new files keep group 0.
USER 0
RUN mkdir -p config/papersearch-realm && chown 10001:0 config/papersearch-realm && chmod 2750 config/papersearch-realm
USER 1000:0
