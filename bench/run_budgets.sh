#!/usr/bin/env bash
# Every speed and scale budget of docs/performance.md in one run, one benchmark after the
# other (run it on a machine doing nothing else: each figure is a ratio to a baseline
# measured in the same run, but two benchmarks side by side disturb each other).
#
#   bench/run_budgets.sh OUT_DIR [BASELINE_CHECKOUT] [LARGE_STORE_HOME]
#
# OUT_DIR gets one file per benchmark and summary.txt (the load average around each).
# BASELINE_CHECKOUT (optional): another milk-tui tree (e.g. `git archive` of an older
# commit) for the benchmarks that compare with one.  LARGE_STORE_HOME (optional): a home
# made by bench/big_store.py (1,000,000 facts, a 100,000-turn session); without it the scale
# benchmarks build one (about a minute) under $TMPDIR.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?an output folder}
base=${2:-}
big=${3:-${TMPDIR:-/tmp}/milk-big-1000000-100000-1000}
mkdir -p "$out"
py=.venv/bin/python
with_base=()
[ -n "$base" ] && with_base=(--baseline "$base")

run() {
  local name=$1
  shift
  echo "=== $name  $(date +%T)  load $(uptime | sed 's/.*load average: //')" | tee -a "$out/summary.txt"
  "$py" "$@" >"$out/$name.txt" 2>&1
  echo "    exit $?" >>"$out/summary.txt"
}

run cold_start bench/tui_cold_start.py --rounds 11 "${with_base[@]}"
run first_token bench/first_token.py --rounds 7
run first_token_slow_server bench/first_token.py --rounds 7 --server-wait 0.1
run headless_turn bench/headless_turn.py
run tui_stream bench/tui_stream.py --rounds 3 --content both "${with_base[@]}"
for i in 1 2 3; do
  run "loop_stalls_md_$i" bench/loop_stalls.py --content md --chunks 20000 --top 3 --updates 5
done
run scale_commands bench/scale_commands.py --rounds 7 --home "$big"
run tui_resume bench/tui_resume.py --home "$big" --rounds 9
run tui_resume_direct bench/tui_resume.py --turns 100000 --rounds 5 --direct
copy=$(mktemp -d "${TMPDIR:-/tmp}/milk-big-copy-XXXXXX")  # the browser writes to its store
cp "$big/milk.db" "$copy/"
run fact_browser bench/fact_browser.py --quick --home "$copy"
rm -rf "$copy"
run import_go bench/import_go.py
echo "=== done  $(date +%T)  load $(uptime | sed 's/.*load average: //')" | tee -a "$out/summary.txt"
