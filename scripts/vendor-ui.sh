#!/usr/bin/env bash
# Re-fetches the dashboard's one third-party file set, uPlot (a small
# time-series chart library, MIT), from the npm registry at the pinned
# version, checks the tarball against the pinned SHA-512 (the registry's
# dist.integrity), and writes its minified IIFE build, its stylesheet and
# its licence to internal/ui/assets/vendor/uplot/. Run it to update (change
# VERSION and INTEGRITY together) or to check that the vendored copy is the
# published one: `scripts/vendor-ui.sh --check` fails if they differ. It also
# writes SHA256SUMS of those files, which `go test ./internal/ui` checks
# without the network.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.6.32
INTEGRITY='sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw=='
DEST=internal/ui/assets/vendor/uplot
FILES=(dist/uPlot.iife.min.js dist/uPlot.min.css LICENSE)

published=$(npm view "uplot@$VERSION" dist.integrity)
if [ "$published" != "$INTEGRITY" ]; then
  echo "vendor-ui: the registry's integrity for uplot@$VERSION is $published, pinned $INTEGRITY" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tgz=$(cd "$tmp" && npm pack --silent "uplot@$VERSION")
got="sha512-$(openssl dgst -sha512 -binary "$tmp/$tgz" | base64 -w0)"
if [ "$got" != "$INTEGRITY" ]; then
  echo "vendor-ui: downloaded $tgz has $got, pinned $INTEGRITY" >&2
  exit 1
fi
tar -xzf "$tmp/$tgz" -C "$tmp"
if [ "${1:-}" = "--check" ]; then
  for f in "${FILES[@]}"; do
    cmp "$tmp/package/$f" "$DEST/$(basename "$f")" || { echo "vendor-ui: $DEST/$(basename "$f") differs from uplot@$VERSION" >&2; exit 1; }
  done
  echo "vendor-ui: $DEST is uplot@$VERSION"
  exit 0
fi
mkdir -p "$DEST"
for f in "${FILES[@]}"; do
  cp "$tmp/package/$f" "$DEST/$(basename "$f")"
done
echo "$VERSION" > "$DEST/VERSION"
# The files' own checksums, which internal/ui's tests check offline.
(cd "$DEST" && sha256sum LICENSE uPlot.iife.min.js uPlot.min.css > SHA256SUMS)
echo "vendor-ui: wrote uplot@$VERSION to $DEST"
