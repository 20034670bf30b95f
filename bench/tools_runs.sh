#!/usr/bin/env bash
# `toolpool tools` run after run on a large configuration (issue 16, item 5): this checkout
# against a baseline checkout, the two alternately, each step on each, in one run.
#
#   bench/tools_runs.sh [SERVERS] [TOOLS_PER_SERVER] [BASELINE]     (20000 5 /work/main)
#
# Each arm gets its own folder with the same configuration (bench/_scale_setup.config_text)
# and a new store. Steps: the first run (new store), again, after another process's
# `toolpool enable` (then again), after another process's `toolpool disable`, and `--json`.
# The other process is the arm's own CLI and is not timed. Every step's output of the two
# arms is compared byte for byte (`cmp`); a difference stops the bench. Times are
# `/usr/bin/time -f "%e %U %S"`: wall, user and system seconds; the ratio is of CPU (user +
# system), this checkout over the baseline. The machine's load is printed before and after.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
servers=${1:-20000}
per_server=${2:-5}
baseline=${3:-/work/main}
python=${PYTHON:-$here/.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# toolpool tools: $servers servers x $per_server tools; baseline $baseline ($(git -C "$baseline" rev-parse --short HEAD)), this $here ($(git -C "$here" rev-parse --short HEAD))"
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'); load before: $(cat /proc/loadavg)"
PYTHONPATH="$here/src:$here/bench" "$python" -c "
import sys
from _scale_setup import config_text
sys.stdout.write(config_text($servers, $per_server))
" >"$work/toolpool.toml"
for arm in base this; do
  mkdir "$work/$arm"
  cp "$work/toolpool.toml" "$work/$arm/"
done

source_of() { if [[ $1 == base ]]; then echo "$baseline/src"; else echo "$here/src"; fi; }

# toolpool ARGS in arm $1's folder; "$2" names the output file, "-" for an untimed change.
toolpool() {
  local arm=$1 label=$2
  shift 2
  local folder="$work/$arm"
  if [[ $label == - ]]; then
    (cd "$folder" && PYTHONPATH=$(source_of "$arm") NO_COLOR=1 "$python" -m toolpool "$@" >/dev/null)
    return
  fi
  (cd "$folder" && /usr/bin/time -f "%e %U %S" -o "$folder/$label.time" \
    env PYTHONPATH="$(source_of "$arm")" NO_COLOR=1 "$python" -m toolpool "$@" >"$folder/$label.out")
}

step() {
  local label=$1
  shift
  toolpool base "$label" "$@"
  toolpool this "$label" "$@"
  cmp -s "$work/base/$label.out" "$work/this/$label.out" || {
    echo "step $label: the outputs differ" >&2
    exit 1
  }
  read -r base_wall base_user base_sys <"$work/base/$label.time"
  read -r this_wall this_user this_sys <"$work/this/$label.time"
  awk -v l="$label" -v bw="$base_wall" -v bu="$base_user" -v bs="$base_sys" \
    -v tw="$this_wall" -v tu="$this_user" -v ts="$this_sys" 'BEGIN {
      printf "| %-22s | %6.2f s CPU (%6.2f wall) | %6.2f s CPU (%6.2f wall) | %5.2fx |\n",
        l, bu + bs, bw, tu + ts, tw, (tu + ts) / (bu + bs)
    }'
}

echo "| run | baseline | this | this / baseline |"
echo "|---|---:|---:|---:|"
step first tools
step again tools
toolpool base - enable s00000 tool_000
toolpool this - enable s00000 tool_000
step after-enable tools
step again-2 tools
toolpool base - disable s00000 tool_000
toolpool this - disable s00000 tool_000
step after-disable tools
step json-again tools --json
echo "# outputs equal byte for byte at every step; $(wc -l <"$work/this/first.out") lines each"
echo "# load after: $(cat /proc/loadavg)"
