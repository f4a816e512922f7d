#!/usr/bin/env bash
# Creates the local podman base images `debian:bookworm` and `debian:bookworm-slim`
# that docker/Dockerfile builds FROM, when they are absent. There is no registry
# to pull base images from here, so the root filesystem comes from
#   debootstrap --variant=minbase bookworm <dir> <mirror>
# with the mirror (and the bookworm-updates / bookworm-security suites) taken from
# the host's /etc/apt/sources.list.d/debian.sources, so the image can install the
# same package versions as the host. Both tags name one image: a minbase system
# with docs, man pages and locales excluded from later installs (like the official
# -slim images). Needs root (debootstrap chroots; podman runs as root here).
#
#   scripts/make-base-image.sh            create the images if absent
#   scripts/make-base-image.sh --force    recreate them
#
# Environment: IKD_DEBIAN_MIRROR overrides the mirror; IKD_BASE_WORKDIR the
# directory the root filesystem is built in (default: a temp dir in /var/tmp).
set -euo pipefail

SUITE=bookworm
TAGS=(debian:bookworm debian:bookworm-slim)
SOURCES=/etc/apt/sources.list.d/debian.sources

log() { echo "make-base-image: $*" >&2; }
die() { log "error: $*"; exit 1; }

force=0
[[ "${1:-}" == "--force" ]] && force=1

command -v podman >/dev/null || die "podman is not installed (scripts/setup.sh --test)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/setup.sh --test)"
[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap and podman's root storage)"

if [[ $force -eq 0 ]]; then
  all=1
  for t in "${TAGS[@]}"; do podman image exists "$t" || all=0; done
  if [[ $all -eq 1 ]]; then
    log "${TAGS[*]} already present"
    exit 0
  fi
fi

# --- Read the host's deb822 sources: the URI of each suite we care about. -----
# Prints "uri suite..." per stanza of Types: deb.
read_sources() {
  awk '
    function flush() { if (types ~ /(^| )deb( |$)/ && uri != "" && suites != "") print uri, suites
                       types = ""; uri = ""; suites = "" }
    /^[[:space:]]*#/ { next }
    /^[[:space:]]*$/ { flush(); next }
    tolower($1) == "types:"  { $1 = ""; types = $0 }
    tolower($1) == "uris:"   { uri = $2 }
    tolower($1) == "suites:" { $1 = ""; suites = $0 }
    END { flush() }
  ' "$1"
}

main_uri="" updates_uri="" security_uri=""
if [[ -r "$SOURCES" ]]; then
  while read -r uri suites; do
    for s in $suites; do
      case "$s" in
        "$SUITE")          [[ -n "$main_uri" ]] || main_uri=$uri ;;
        "$SUITE-updates")  [[ -n "$updates_uri" ]] || updates_uri=$uri ;;
        "$SUITE-security") [[ -n "$security_uri" ]] || security_uri=$uri ;;
      esac
    done
  done < <(read_sources "$SOURCES")
fi
mirror=${IKD_DEBIAN_MIRROR:-${main_uri:-http://deb.debian.org/debian}}
log "mirror $mirror (updates: ${updates_uri:-none}, security: ${security_uri:-none})"

# --- debootstrap into a scratch directory, cleaned up on every exit. ----------
workdir=${IKD_BASE_WORKDIR:-$(mktemp -d /var/tmp/ikd-base.XXXXXX)}
rootfs=$workdir/rootfs
cleanup() {
  # debootstrap mounts proc/sys inside the target; never rm -rf across a mount.
  if [[ -d "$rootfs" ]]; then
    awk -v r="$rootfs" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts |
      sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    if awk -v r="$rootfs" 'index($2, r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
      log "warning: mounts remain under $rootfs; not removing it"
      return
    fi
  fi
  rm -rf "$workdir"
}
trap cleanup EXIT
mkdir -p "$rootfs"

start=$(date +%s)
log "debootstrap --variant=minbase $SUITE (log: $workdir/debootstrap.log)"
if ! debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" >"$workdir/debootstrap.log" 2>&1; then
  tail -n 30 "$workdir/debootstrap.log" >&2 || true
  tail -n 30 "$rootfs/debootstrap/debootstrap.log" >&2 2>/dev/null || true
  die "debootstrap failed"
fi

# --- apt configuration inside the image. --------------------------------------
rm -f "$rootfs/etc/apt/sources.list"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
stanza() { printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$1" "$2" "$keyring"; }
{
  if [[ -n "$updates_uri" && "$updates_uri" == "$mirror" ]]; then
    stanza "$mirror" "$SUITE $SUITE-updates"
  else
    stanza "$mirror" "$SUITE"
    [[ -z "$updates_uri" ]] || { echo; stanza "$updates_uri" "$SUITE-updates"; }
  fi
  [[ -z "$security_uri" ]] || { echo; stanza "$security_uri" "$SUITE-security"; }
} >"$rootfs/etc/apt/sources.list.d/debian.sources"

# Mirrors here may serve snapshots whose Release files are past Valid-Until.
cat >"$rootfs/etc/apt/apt.conf.d/90ikd-base" <<'EOF'
Acquire::Check-Valid-Until "false";
Acquire::Languages "none";
APT::Install-Recommends "false";
APT::Install-Suggests "false";
EOF
# Like the official images: no docs, man pages or locales from later installs.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/90ikd-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
EOF
# debootstrap installs from the main suite only: bring in bookworm-updates and
# bookworm-security now, as the official images do.
log "apt-get dist-upgrade from the updates/security suites"
cp -L /etc/resolv.conf "$rootfs/etc/resolv.conf"
mount -t proc proc "$rootfs/proc"
upgrade_rc=0
chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  sh -c 'apt-get update -q && apt-get -y -q -o Dpkg::Options::=--force-confold dist-upgrade && apt-get clean' \
  >"$workdir/upgrade.log" 2>&1 || upgrade_rc=$?
umount "$rootfs/proc"
if [[ $upgrade_rc -ne 0 ]]; then
  tail -n 30 "$workdir/upgrade.log" >&2
  die "apt-get dist-upgrade in the new root filesystem failed"
fi

# Keep the image small: no package lists or caches from debootstrap.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
       "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log \
       "$rootfs"/debootstrap 2>/dev/null || true
find "$rootfs/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* 2>/dev/null || true
find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
: >"$rootfs/etc/hostname"
# The container runtime provides these.
rm -f "$rootfs/etc/resolv.conf" "$rootfs/etc/hosts"
touch "$rootfs/etc/resolv.conf" "$rootfs/etc/hosts"

# Make sure nothing is still mounted before tar reads the tree.
awk -v r="$rootfs" 'index($2, r "/") == 1 { print $2 }' /proc/mounts |
  sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done

# --- Import, and tag the same image under both names. -------------------------
for t in "${TAGS[@]}"; do podman image rm -f "$t" >/dev/null 2>&1 || true; done
log "podman import"
id=$(tar --numeric-owner -C "$rootfs" -c . |
  podman import --quiet --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' \
    --message "debootstrap --variant=minbase $SUITE $mirror" - "${TAGS[0]}")
for t in "${TAGS[@]:1}"; do podman tag "${TAGS[0]}" "$t"; done
size=$(podman image inspect --format '{{.Size}}' "${TAGS[0]}")
log "created ${TAGS[*]} (${id:7:12}, $((size / 1024 / 1024)) MiB) in $(( $(date +%s) - start ))s"
