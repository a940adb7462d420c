#!/usr/bin/env bash
# The bare-install check of CI: what a newcomer runs, on a fresh virtual environment with only
# `pip install -e .` (no extras). It
#   1. runs the README's "Run the main job" command exactly as written (read from README.md, so
#      the two cannot drift), which itself does the `pip install -e .`;
#   2. runs one example of every subcommand, and of the Python API, in that venv: each must exit 0
#      with no traceback; `plot` needs the `plot` extra, so it must exit 2 with a one-line
#      "install symq[plot]" message;
#   3. imports every module of symq/ and every third-party module that symq/ imports anywhere
#      (.ci/bare_imports.py), so that a dependency used inside one function is caught too.
# Any failure fails the check (exit status 1), after every example has been tried.
#
# Usage: .ci/bare_install_check.sh [VENV_DIR]     (default .venv-bare; removed and re-created)
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${1:-.venv-bare}
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the README's command, read from README.md (the fenced block after **Run the main job**)
main_job=$("$python" .ci/readme_command.py '**Run the main job**')

rm -rf "$venv"
"$python" -m venv "$venv"
# shellcheck disable=SC1091
source "$venv/bin/activate"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

echo "== README main job (in $venv, fresh):"
echo "$main_job"
start=$(date +%s)
if ! bash -c "$main_job" >"$work/main.out" 2>"$work/main.err"; then
  tail -n 30 "$work/main.err" >&2
  fail "the README's main-job command exited non-zero in a bare install"
elif grep -q Traceback "$work/main.err"; then
  fail "main job: a traceback on stderr"
else
  echo "   ok in $(( $(date +%s) - start )) s; last line: $(tail -n 1 "$work/main.out")"
fi
if [ ! -x "$venv/bin/symq" ]; then
  echo "bare_install_check: pip install -e . did not install the symq command into $venv" >&2
  exit 1
fi

# every subcommand once; NAME EXPECTED_STATUS COMMAND...
n=0
covered=" "
check() {
  local name=$1 expected=$2; shift 2
  n=$((n + 1))
  if [ "$1" = symq ]; then covered+="$2 "; fi
  local out="$work/$n.out" err="$work/$n.err" status=0 t0
  t0=$(date +%s)
  "$@" >"$out" 2>"$err" || status=$?
  if [ "$status" -ne "$expected" ]; then
    fail "$name: exit status $status, expected $expected: $*"
    tail -n 20 "$err" >&2
  elif grep -q Traceback "$err"; then
    fail "$name: a traceback on stderr: $*"
    tail -n 20 "$err" >&2
  else
    echo "   ok  $name ($(( $(date +%s) - t0 )) s): $*"
  fi
}

echo "== every subcommand in the bare install:"
check version 0 symq --version
check python-api 0 python -c 'import symq; print(symq.empty_probability("n"))'
check python-simulate 0 python -c 'import symq; m = symq.model("n").substitute({"lambda_1": 3,
  "lambda_2": 1, "mu_1": 1, "mu_2": 1}); print(symq.simulate_jlw(m, horizon=50, seed=1))'
check imports 0 python .ci/bare_imports.py
echo "       $(tail -n 1 "$work/$n.out")"
check list 0 symq list
check routes 0 symq routes
check explain 0 symq explain w mean-number --discipline alis --set lambda_1=3/10 \
  --set lambda_2=1/5 --set lambda_3=1/2 --set mu_1=1 --set mu_2=4/5
check show 0 symq show w
check derive 0 symq derive w empty-probability --discipline alis
check evaluate 0 symq evaluate w mean-response-time --discipline alis --set lambda_1=3/10 \
  --set lambda_2=1/5 --set lambda_3=1/2 --set mu_1=1 --set mu_2=4/5 --digits 20
check evaluate-response-time 0 symq evaluate w response-time-survival --discipline alis \
  --time 1 --set lambda_1=1/2 --set lambda_2=1/4 --set lambda_3=1/2 --set mu_1=1 --set mu_2=2
check evaluate-digits 0 symq evaluate redundancy:12:3 mean-number --set lambda=6 --set mu=1 \
  --digits 30
check verify 0 symq verify ring:3 --discipline rais --max-jobs 3
check report 0 symq report w --output "$work/w.tex" --quiet
if [ ! -s "$work/w.tex" ]; then fail "report: $work/w.tex was not written"; fi
check sweep 0 symq sweep balance --classes 2 --servers 2 --workers 0 --quiet \
  --output "$work/sweep.jsonl"
check compensation 0 symq compensation jsq --rho 9/10 --digits 20
check supermarket 0 symq supermarket w --set lambda_1=1/2 --set lambda_2=1/2 --set lambda_3=1 \
  --set mu_1=1 --set mu_2=1
check uninformed 0 symq uninformed theorem --servers 3
check optimize 0 symq optimize w mean-response-time --set lambda_1=3/20 --set lambda_2=1/10 \
  --set lambda_3=1/4 --budget "mu_1 + mu_2 = 9/5" --digits 20
check uninformed-law 0 symq evaluate uninformed:3 server-idle-probability --discipline rais \
  --set lambda=2 --set mu_1=3 --set mu_2=2 --set mu_3=1

# plot needs the plot extra: exit 2 and one line that says how to install it
check plot 2 symq plot w graph --output "$work/w.png"
plot_err="$work/$n.err"
if ! grep -q 'install.*symq\[plot\]' "$plot_err"; then
  fail "plot: stderr does not say to install symq[plot]: $(cat "$plot_err")"
elif [ "$(wc -l <"$plot_err")" -ne 1 ]; then
  fail "plot: the message is not one line: $(cat "$plot_err")"
else
  echo "   plot says: $(cat "$plot_err")"
fi

# a subcommand added to the CLI needs its example here
commands=$(python -c 'import argparse
from symq.cli import build_parser
for action in build_parser()._actions:
    if isinstance(action, argparse._SubParsersAction):
        print(" ".join(sorted(action.choices)))')
for command in $commands; do
  if [[ "$covered" != *" $command "* ]]; then
    fail "the subcommand '$command' has no example in .ci/bare_install_check.sh"
  fi
done
echo "   subcommands: $commands"

deactivate
if [ "$failures" -ne 0 ]; then
  echo "bare_install_check: $failures failure(s)" >&2
  exit 1
fi
echo "bare_install_check: the README main job and $n examples pass in a bare install"
