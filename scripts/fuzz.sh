#!/usr/bin/env bash
# Runs every fuzz target for the given time each (default 10s). A target is a
# line "package FuzzName" in scripts/fuzz-targets.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-10s}
[ -f scripts/fuzz-targets.txt ] || exit 0
while read -r pkg name; do
  [ -n "$pkg" ] && [ "${pkg:0:1}" != "#" ] || continue
  echo "fuzz $pkg $name ($t)"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg"
done < scripts/fuzz-targets.txt
