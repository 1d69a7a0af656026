#!/bin/sh
# Prints Maven settings that send every repository request to the mirror $1 (MAVEN_MIRROR of the image
# builds). TLS trust is the JDK's own: the Debian bases of scripts/build-images.sh carry an extra CA
# bundle in their system store (ca-certificates-java); the official Maven image does not read one.
set -eu
cat <<XML
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
  <mirrors>
    <mirror><id>papersearch-mirror</id><mirrorOf>*</mirrorOf><url>$1</url></mirror>
  </mirrors>
</settings>
XML
