#!/usr/bin/env bash
# Installs what the test suite needs beyond Go, from Debian's packages:
# Chromium, for the dashboard's browser tests, etcd, for the Kubernetes
# executor's real API server, and PostgreSQL, for the PostgreSQL store and
# leader-lease tests (they start their own throwaway clusters as an
# unprivileged user). Safe to run again.
set -euo pipefail
have_pg() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; }
if command -v chromium >/dev/null 2>&1 && command -v etcd >/dev/null 2>&1 && have_pg; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-deps: Chromium, etcd or PostgreSQL is missing and this is not root; run: sudo apt-get install -y chromium etcd-server postgresql" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# A failed install must not fail CI by itself: the tests that need the
# package then skip and say why. Nor may a stalled mirror hold CI: the
# downloads (apt-get update, then the packages) are given
# TASKGOV_APT_TIMEOUT each (default 15m) and abandoned after it; the
# install itself reads the downloaded files only, and is never cut short
# (a dpkg killed mid-way would refuse the next run).
t=${TASKGOV_APT_TIMEOUT:-15m}
pkgs="chromium fonts-dejavu-core etcd-server postgresql"
if ! { timeout "$t" apt-get update -qq &&
  timeout "$t" apt-get install -y -qq --no-install-recommends --download-only $pkgs >/dev/null &&
  apt-get install -y -qq --no-install-recommends $pkgs >/dev/null; }; then
  echo "install-test-deps: could not install Chromium, etcd and PostgreSQL (each download has $t); the browser, Kubernetes and PostgreSQL tests will be skipped" >&2
  exit 0
fi
# Debian's package enables an etcd service; the tests start their own.
systemctl disable --now etcd >/dev/null 2>&1 || true
# Likewise Debian's PostgreSQL cluster service.
systemctl disable --now postgresql >/dev/null 2>&1 || true
chromium --version 2>/dev/null || true
