#!/usr/bin/env bash
# The README's two commands on a truly fresh Debian 12, not on a developer's machine.
#
# Builds a minimal root filesystem (Debian's required base and apt: what a container image or
# a minimal install has; no python3, no kmod, no storage tools), copies in a clone of this
# checkout's HEAD, and runs inside it with chroot, as root:
#   bash scripts/dev.sh setup
#   bash scripts/dev.sh tui --version     (the TUI command's setup path, without a terminal)
#   bash scripts/dev.sh tui plan          (the example pod, as `podplan plan` prints it)
#   bash scripts/dev.sh test [PYTEST ARGS] with --test (the whole suite unless ARGS narrow it)
#
#   bash scripts/fresh_root.sh [--keep] [--test [PYTEST ARGS...]]
# Needs root (chroot, bind mounts for /dev, /proc and /sys: the tests make loop devices) and
# Debian's mirror; it installs mmdebstrap on the host if missing. Takes 2-4 minutes without
# --test; the whole suite adds 12-20. Prints the time of each step, exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

keep=0
test=0
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1; shift ;;
    --test) test=1; shift; break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "fresh_root: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
pytest_args=("$@")

[ "$(id -u)" -eq 0 ] || { echo "fresh_root: needs root (chroot and bind mounts)" >&2; exit 2; }
if ! command -v mmdebstrap >/dev/null 2>&1; then
  echo "fresh_root: installing mmdebstrap on the host" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

root=$(mktemp -d /var/tmp/podplan-fresh.XXXXXX)
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  if [ "$keep" -eq 1 ]; then echo "fresh_root: kept $root" >&2; else rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT

step() {
  local name=$1 t0=$SECONDS
  shift
  echo "== $name" >&2
  "$@"
  echo "== $name: done in $((SECONDS - t0)) s" >&2
}

# A fresh login's environment, plus the host's proxy and CA-bundle settings: a machine behind
# a TLS-inspecting proxy needs them to reach PyPI, and they are the network's, not the project's.
passed_env=()
for var in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY SSL_CERT_FILE PIP_CERT REQUESTS_CA_BUNDLE; do
  [ -n "${!var:-}" ] && passed_env+=("$var=${!var}")
done

inside() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 "${passed_env[@]}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /root/podplan && $1"
}

build_root() {
  mmdebstrap --quiet --variant=minbase bookworm "$root" http://deb.debian.org/debian
  # What the fresh root has and lacks, for the record.
  for prog in python3 depmod mdadm fio mkfs.xfs qemu-system-x86_64 uv; do
    if chroot "$root" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "command -v $prog" >/dev/null; then
      echo "   fresh root has $prog" >&2
    else
      echo "   fresh root lacks $prog" >&2
    fi
  done
}

copy_project() {
  # The root as a mount point of its own, as a real root is: `unshare --propagation private`
  # (the LVM probe, the multi-host tests) refuses a chroot whose / is a plain directory.
  mount --bind "$root" "$root" && mounted+=("$root")
  git clone -q --no-local "$repo" "$root/root/podplan"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  # The host's own CAs (a proxy's, a company's): ca-certificates adds them when setup installs it.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  fi
  mount --bind /dev "$root/dev" && mounted+=("$root/dev")
  mount --bind /dev/pts "$root/dev/pts" && mounted+=("$root/dev/pts")
  mount -t proc proc "$root/proc" && mounted+=("$root/proc")
  mount --bind /sys "$root/sys" && mounted+=("$root/sys")
  mount -t tmpfs tmpfs "$root/tmp" && mounted+=("$root/tmp")
}

step "minimal Debian 12 root" build_root
step "clone of $(git rev-parse --short HEAD)" copy_project
step "bash scripts/dev.sh setup" inside "bash scripts/dev.sh setup"
step "bash scripts/dev.sh tui --version" inside "bash scripts/dev.sh tui --version"
step "bash scripts/dev.sh tui plan" inside "bash scripts/dev.sh tui plan | head -3"
if [ "$test" -eq 1 ]; then
  step "bash scripts/dev.sh test ${pytest_args[*]}" inside "bash scripts/dev.sh test ${pytest_args[*]}"
fi
echo "fresh_root: the README's commands work on a fresh Debian 12 root" >&2
