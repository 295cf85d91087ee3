#!/usr/bin/env bash
# The suite on a busy machine: exactly what CI runs (.ci/run: `npm ci`, then `npm test`), from a
# fresh clone of the current HEAD (committed work only) in a private (0700) temp folder, while two
# busy-looping Node processes hold the cores for the whole run. The hogs are killed however this
# script ends. Prints the result and exits with the suite's code. Usage: npm run test:load
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
head="$(git -C "$repo" rev-parse HEAD)" || exit 2
work="$(mktemp -d "${TMPDIR:-/tmp}/mc-agent-load.XXXXXX")" || exit 2
chmod 700 "$work"
hogs=()
cleanup() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

clone="$work/mc-agent"
git clone --quiet --no-local --no-checkout "$repo" "$clone" && git -C "$clone" checkout --quiet --detach "$head" || {
  echo "test:load: could not clone $head" >&2
  exit 2
}
for _ in 1 2; do
  node -e 'for(;;){}' &
  hogs+=("$!")
done
echo "test:load: ${head:0:12} in $clone, hogs ${hogs[*]}"
started=$SECONDS
(cd "$clone" && ./.ci/run)
code=$?
if [ "$code" -eq 0 ]; then verdict=passed; else verdict="FAILED (exit $code)"; fi
echo "test:load: .ci/run ${verdict} in $((SECONDS - started)) s under two busy cores"
exit "$code"
