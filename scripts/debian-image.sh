#!/usr/bin/env bash
# A Debian base image made with mmdebstrap from a Debian mirror and `docker import`ed — no image registry
# needed. Cached: nothing is done when NAME exists and was made from the same inputs (suite, mirror,
# packages, CA bundle, --run/--env, this script); the inputs' digest is the image's label
# org.papersearch.inputs.
#
#   scripts/debian-image.sh [--force] [--no-trim] [--run CMD]... [--env K=V]... NAME SUITE [PACKAGE...]
#
#   NAME      image name to import as, e.g. papersearch-base/python:bookworm
#   SUITE     bookworm (Debian 12), trixie (Debian 13), …
#   PACKAGE   packages to install besides the minbase variant (apt's essential set)
#   --run     a shell command run inside the new root after the packages (repeatable)
#   --env     an ENV of the image (repeatable); PATH is always set
#   --force   rebuild even when the cached image matches
#   --no-trim keep apt lists, docs and man pages as mmdebstrap leaves them (a fresh machine: packages
#             installed later need /usr/share/man/man1, e.g. OpenJDK's update-alternatives)
#
# Environment (docs/operations.md "Building without Docker Hub"):
#   DEBIAN_MIRROR           default http://deb.debian.org/debian (apt verifies packages by signature,
#                           so plain http is safe; an https mirror uses PAPERSEARCH_CA_BUNDLE if set)
#   DEBIAN_SECURITY_MIRROR  default: none (security updates are not added unless set, e.g.
#                           http://deb.debian.org/debian-security)
#   PAPERSEARCH_CA_BUNDLE   a PEM file of extra CA certificates (networks that inspect TLS); trusted by
#                           apt while building and installed into the image's system store (and Java's
#                           cacerts when ca-certificates-java is among the packages). Default: none.
#   DOCKER                  the docker CLI (default: /usr/bin/docker when present, else docker)
#
# One call for a fresh Debian 12 with a few tools:
#   scripts/debian-image.sh --no-trim papersearch-fresh:bookworm bookworm python3 python3-venv make git curl ca-certificates
# Exit status: 0 done (or cached); 1 failed; 2 bad usage.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

force=0
trim=1
runs=()
envs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --force) force=1; shift ;;
    --no-trim) trim=0; shift ;;
    --run) [ $# -ge 2 ] || usage; runs+=("$2"); shift 2 ;;
    --env) [ $# -ge 2 ] || usage; envs+=("$2"); shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "debian-image: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
name=$1 suite=$2
shift 2
packages=("$@")

DOCKER=${DOCKER:-$([ -x /usr/bin/docker ] && echo /usr/bin/docker || echo docker)}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-}
bundle=${PAPERSEARCH_CA_BUNDLE:-}
if [ -n "$bundle" ] && [ ! -s "$bundle" ]; then
  echo "debian-image: PAPERSEARCH_CA_BUNDLE=$bundle is not a readable, non-empty file" >&2
  exit 1
fi
path_env="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
for e in "${envs[@]}"; do
  case "$e" in PATH=*) path_env=$e ;; esac
done

inputs=$( {
  printf '%s\n' "suite=$suite" "mirror=$mirror" "security=$security" "packages=${packages[*]}" "trim=$trim"
  printf 'run=%s\n' "${runs[@]}"
  printf 'env=%s\n' "${envs[@]}" "$path_env"
  [ -n "$bundle" ] && sha256sum < "$bundle"
  sha256sum < "$0"
} | sha256sum | cut -c1-32)

if [ "$force" = 0 ]; then
  have=$("$DOCKER" image inspect --format '{{ index .Config.Labels "org.papersearch.inputs" }}' "$name" 2>/dev/null || true)
  if [ "$have" = "$inputs" ]; then
    echo "debian-image: $name is up to date (cached)"
    exit 0
  fi
fi

command -v mmdebstrap >/dev/null 2>&1 || {
  if [ "$(id -u)" -ne 0 ]; then
    echo "debian-image: mmdebstrap is missing: sudo apt-get install -y mmdebstrap" >&2
    exit 1
  fi
  echo "debian-image: installing mmdebstrap"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
}

work=$(mktemp -d /tmp/papersearch-debian-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
echo "debian-image: building $name from Debian $suite ($mirror) with: ${packages[*]:-(minbase only)}"

args=(--variant=minbase --components=main --quiet)
[ ${#packages[@]} -gt 0 ] && args+=("--include=$(IFS=,; echo "${packages[*]}")")
mirrors=("deb $mirror $suite main" "deb $mirror $suite-updates main")
[ -n "$security" ] && mirrors+=("deb $security $suite-security main")
if [ -n "$bundle" ]; then
  # Split the bundle into one file per certificate: update-ca-certificates (and Java's hook) take
  # the first certificate of a file only.
  mkdir "$work/ca"
  awk -v dir="$work/ca" '/-----BEGIN CERTIFICATE-----/{n++; f=sprintf("%s/papersearch-extra-%03d.crt", dir, n)}
       n {print > f} /-----END CERTIFICATE-----/{close(f)}' "$bundle"
  case "$mirror$security" in *https:*) args+=("--aptopt=Acquire::https::CaInfo \"$bundle\"") ;; esac
  args+=(--customize-hook="mkdir -p \"\$1/usr/local/share/ca-certificates\"; cp $work/ca/*.crt \"\$1/usr/local/share/ca-certificates/\"")
  args+=(--customize-hook='if [ -x "$1/usr/sbin/update-ca-certificates" ]; then chroot "$1" update-ca-certificates >/dev/null 2>&1; fi')
fi
for cmd in "${runs[@]}"; do
  args+=(--customize-hook="chroot \"\$1\" /bin/sh -c $(printf '%q' "$cmd")")
done
# Smaller images: no apt lists, caches or docs (apt-get update inside the image fetches the lists anew).
[ "$trim" = 1 ] && args+=(--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/usr/share/doc/* "$1"/usr/share/man/*')

mmdebstrap "${args[@]}" "$suite" "$work/root.tar" "${mirrors[@]}"

changes=(--change "ENV $path_env" --change "LABEL org.papersearch.inputs=$inputs"
         --change "LABEL org.papersearch.debian-suite=$suite" --change 'CMD ["/bin/bash"]')
for e in "${envs[@]}"; do
  case "$e" in PATH=*) ;; *) changes+=(--change "ENV $e") ;; esac
done
"$DOCKER" import "${changes[@]}" "$work/root.tar" "$name" >/dev/null
echo "debian-image: $name built in $(( $(date +%s) - started )) s ($(du -h "$work/root.tar" | cut -f1))"
