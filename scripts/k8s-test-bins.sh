#!/usr/bin/env bash
# Builds the Kubernetes binaries the Kubernetes executor's integration tests
# run (kube-apiserver and kube-controller-manager from tools/kube, kwok from
# tools/kwok) and caches them
# by version outside the repo. Prints the cache folder. A warm run takes
# under a second; a cold one about 20 minutes on 2 cores.
#
#   TASKGOV_K8S_BIN=$(scripts/k8s-test-bins.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kube=$(awk '/^require k8s.io\/kubernetes /{print $3}' "$root/tools/kube/go.mod")
kwok=$(awk '/^require sigs.k8s.io\/kwok /{print $3}' "$root/tools/kwok/go.mod")
dir=${TASKGOV_K8S_CACHE:-$HOME/.cache/taskgov/k8s}/kube-$kube-kwok-$kwok
mkdir -p "$dir"
# A cold build downloads its modules through the Go module proxy: a stalled
# download is abandoned after TASKGOV_K8S_BUILD_TIMEOUT (default 60m), and
# the script fails (CI then skips the Kubernetes tests and says why).
limit=${TASKGOV_K8S_BUILD_TIMEOUT:-60m}
build() { # build <tools module> <package> <binary>
  if [ ! -x "$dir/$3" ]; then
    echo "k8s-test-bins: building $3 into $dir (cold: minutes)" >&2
    (cd "$root/tools/$1" && timeout "$limit" go build -o "$dir/$3.tmp" "$2") && mv "$dir/$3.tmp" "$dir/$3"
  fi
}
build kube k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver
build kube k8s.io/kubernetes/cmd/kube-controller-manager kube-controller-manager
build kwok sigs.k8s.io/kwok/cmd/kwok kwok
if ! command -v etcd >/dev/null 2>&1; then
  echo "k8s-test-bins: etcd is missing; run scripts/install-test-deps.sh (Debian package etcd-server)" >&2
  exit 1
fi
echo "$dir"
