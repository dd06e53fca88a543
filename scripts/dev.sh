#!/usr/bin/env bash
# Set up what is missing on a Debian/Ubuntu machine, then open the TUI or run the tests.
#   bash scripts/dev.sh tui [ARGS...]   the TUI on the built-in example pod (or ARGS)
#   bash scripts/dev.sh test [PYTEST ARGS...]   the checks below, then the tests
#   bash scripts/dev.sh check           the linter, the formatter's check and the type checker
#   bash scripts/dev.sh setup
set -euo pipefail
cd "$(dirname "$0")/.."

# The storage tools podplan drives and the tests ask for real answers.
APT_PACKAGES=(mdadm lvm2 xfsprogs e2fsprogs btrfs-progs fio smartmontools util-linux kmod shellcheck tmux
  qemu-system-x86 chromium)
declare -A PROVIDES=([mdadm]=mdadm [lvm2]=pvcreate [xfsprogs]=mkfs.xfs [e2fsprogs]=mke2fs [btrfs-progs]=mkfs.btrfs [fio]=fio
  [smartmontools]=smartctl [util-linux]=lsblk [kmod]=depmod [shellcheck]=shellcheck [tmux]=tmux [qemu-system-x86]=qemu-system-x86_64
  [chromium]=chromium)

need_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

setup_system() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    PATH="$PATH:/usr/sbin:/sbin" command -v "${PROVIDES[$pkg]}" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "podplan setup: installing ${missing[*]}" >&2
    need_root apt-get update -qq
    # mdadm's postinst would start monitoring services; the policy keeps a container quiet.
    need_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

setup_python() {
  if ! command -v uv >/dev/null 2>&1 && [ ! -x "$HOME/.local/bin/uv" ]; then
    echo "podplan setup: installing uv" >&2
    if command -v pip3 >/dev/null 2>&1 || command -v pip >/dev/null 2>&1; then
      python3 -m pip install -q --user uv 2>/dev/null || python3 -m pip install -q --break-system-packages --user uv
    else
      # A minimal Debian has no Python at all: python3-pip brings python3 (3.11 on Debian 12).
      need_root apt-get update -qq
      need_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
      python3 -m pip install -q --break-system-packages --user uv
    fi
  fi
  export PATH="$HOME/.local/bin:$PATH"
  uv sync --frozen --quiet --compile-bytecode
}

# One worker more than CPUs: the lab's VMs spend much of their time waiting on throttled disks.
# (Two more would keep both cores busy while two such boots wait, but the lab's speed figures need
# the guest's CPU when their disks answer: on a host loaded to 13, random 4 KiB points at 800 IOPS
# came in at 52-65 % of the disks' rate.)
# Each test file stays on one worker (--dist loadfile), and so do the files of one shared lab boot
# (tests/conftest.py gives xdist that scheduler), so each boot happens once. Files go out in the
# order tests/conftest.py gives them (the lab's long boots first); xdist's default would reorder
# them by their count of tests, and send the lab's few-test files last.
test_workers() { echo $(($(nproc 2>/dev/null || echo 1) + 1)); }
# The slowest tests are listed after each run: the suite is held under 15 minutes by them.
PYTEST_PARALLEL=(--dist loadfile --no-loadscope-reorder --durations=15)

# The whole suite: in parallel, then the tests that signal a running validate (Ctrl+C, SIGTERM) on
# their own, away from the lab's load (under it a run once ended before its signal arrived).
SERIAL_TESTS=(tests/test_fio_run.py)
run_tests() {
  if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest -q -n "$(test_workers)" "${PYTEST_PARALLEL[@]}" "$@"
  fi
  local rc=0 ignore=() t
  for t in "${SERIAL_TESTS[@]}"; do ignore+=("--ignore=$t"); done
  .venv/bin/python -m pytest -q -n "$(test_workers)" "${PYTEST_PARALLEL[@]}" "${ignore[@]}" || rc=$?
  .venv/bin/python -m pytest -q -p no:xdist "${SERIAL_TESTS[@]}" || rc=$?
  return "$rc"
}

# Every check runs, so that one run names all that is wrong; the status fails if any did.
run_checks() {
  local rc=0
  .venv/bin/ruff check --quiet --output-format concise . || rc=$?
  .venv/bin/ruff format --check --quiet --output-format concise . || rc=$?
  .venv/bin/mypy || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "podplan check: failed; '.venv/bin/ruff format . && .venv/bin/ruff check --fix .' mends layout and imports" >&2
  fi
  return "$rc"
}

cmd=${1:-tui}
shift || true
case "$cmd" in
  setup) setup_system; setup_python ;;
  tui) setup_system; setup_python; exec .venv/bin/podplan "$@" ;;
  check) setup_python; run_checks ;;
  test)
    setup_system; setup_python; export PATH="$PATH:/usr/sbin:/sbin"
    # The checks take seconds and the suite many minutes: a run that fails them stops before pytest.
    run_checks || { echo "podplan test: the checks above failed; no tests were run" >&2; exit 1; }
    run_tests "$@" ;;
  *) echo "usage: bash scripts/dev.sh [tui|test|check|setup] [ARGS...]" >&2; exit 2 ;;
esac
