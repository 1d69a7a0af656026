# A stand-in for the official Elasticsearch image, from package registries alone: the Maven artifact
# the local node uses (org.elasticsearch.distribution.integ-test-zip, config/node.toml) on Debian's
# OpenJDK 21, in /usr/share/elasticsearch, run as uid 1000 (group 0), with an entry point that follows
# the official image's conventions (docker/elasticsearch-entrypoint.sh). Built by
# scripts/build-images.sh from its Debian bases; docker/elasticsearch.Dockerfile then adds the plugin.
# Only core analysis and x-pack security are in this distribution (DECISIONS.md D-001): users are in the file realm.
ARG ES_VERSION=9.5.4
ARG MAVEN_IMAGE=papersearch-base/maven:trixie
ARG JRE_IMAGE=papersearch-base/jre:trixie

FROM ${MAVEN_IMAGE} AS dist
ARG ES_VERSION
ARG MAVEN_MIRROR=https://repo.maven.apache.org/maven2
COPY docker/maven-settings.sh /usr/local/bin/papersearch-maven-settings
RUN --mount=type=cache,target=/root/.m2 \
    sh /usr/local/bin/papersearch-maven-settings "${MAVEN_MIRROR}" > /tmp/settings.xml \
 && mvn -B -q -s /tmp/settings.xml dependency:copy \
        -Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip -DoutputDirectory=/dist \
 && cd /opt && unzip -q /dist/elasticsearch-${ES_VERSION}.zip && mv elasticsearch-${ES_VERSION} elasticsearch \
 && printf '%s\n' 'cluster.name: docker-cluster' 'network.host: 0.0.0.0' > elasticsearch/config/elasticsearch.yml \
 && mkdir -p elasticsearch/data elasticsearch/logs elasticsearch/plugins

FROM ${JRE_IMAGE}
ARG ES_VERSION
LABEL org.opencontainers.image.title="papersearch-elasticsearch-base" \
      org.opencontainers.image.description="Elasticsearch ${ES_VERSION} (integ-test-zip) on Debian's OpenJDK 21"
RUN useradd --uid 1000 --gid 0 --home-dir /usr/share/elasticsearch --no-create-home --shell /bin/bash elasticsearch
COPY --from=dist --chown=1000:0 /opt/elasticsearch /usr/share/elasticsearch
COPY docker/elasticsearch-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
# ES_JAVA_HOME: Debian's JDK under an architecture-independent name (Elasticsearch ignores JAVA_HOME).
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh && chmod -R g=u /usr/share/elasticsearch \
 && ln -s "$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")" /usr/lib/jvm/papersearch-java
WORKDIR /usr/share/elasticsearch
ENV ELASTIC_CONTAINER=true \
    ES_JAVA_HOME=/usr/lib/jvm/papersearch-java
USER 1000:0
EXPOSE 9200 9300
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["eswrapper"]
