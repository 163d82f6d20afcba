#!/usr/bin/env bash
# The whole suite through `dray regress`, cases spread over 2 ranks: exit 0 and a report; and
# a suite with a broken golden: exit 1, the failing case in the table and a heatmap.
# Usage: suite_test.sh DRAY SUITE_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$1 suite=$2 mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
${mpiexec/ N / 2 } "$dray" regress "$suite" --report "$tmp/report" > "$tmp/out" 2>&1
code=$?
n_cases=$(ls "$suite/cases"/*.json | wc -l)
n_pass=$(grep -c "| pass " "$tmp/out")
if [ $code = 0 ] && [ "$n_pass" = "$n_cases" ] && [ -s "$tmp/report/report.md" ]; then
  echo "ok   dray regress on 2 ranks: $n_pass of $n_cases cases pass, report written"; else
  echo "FAIL dray regress on 2 ranks: exit $code, $n_pass of $n_cases pass"; cat "$tmp/out"; fail=1; fi

# A copy of one case whose golden is 5% too bright must fail, with a heatmap in the report.
mkdir -p "$tmp/bad/cases" "$tmp/bad/golden"
sed 's|"\.\./\.\./\.\./scenes/|"'"$suite"'/../../scenes/|' "$suite/cases/spheres.json" > "$tmp/bad/cases/spheres.json"
cp "$suite/golden/spheres.var.exr" "$tmp/bad/golden/"
"$dray" render "$tmp/bad/cases/spheres.json" --set 'lights.key.intensity=42' --spp 256 --seed 5 -q \
  -o "$tmp/bad/golden/spheres.exr"
${mpiexec/ N / 3 } "$dray" regress "$tmp/bad" --report "$tmp/badreport" > "$tmp/out" 2>&1
code=$?
if [ $code = 1 ] && grep -q "| spheres .*| FAIL" "$tmp/out" && [ -s "$tmp/badreport/spheres.heat.png" ] \
   && grep -q "spheres.heat.png" "$tmp/badreport/report.md"; then
  echo "ok   a wrong golden fails with exit 1 and a heatmap in the report"; else
  echo "FAIL a wrong golden: exit $code"; cat "$tmp/out"; fail=1; fi

"$dray" regress "$tmp/nowhere" > "$tmp/out" 2>&1
code=$?
if [ $code = 2 ] && grep -q "no cases/ folder" "$tmp/out"; then echo "ok   a missing suite exits 2"; else
  echo "FAIL a missing suite: exit $code"; cat "$tmp/out"; fail=1; fi
exit $fail
