#!/usr/bin/env bash
# One regression case: rendered on 1 rank (2 threads) and on 3 ranks (1 thread each); the two
# images must be bitwise equal, and each must pass the Z-test against the golden.
# Usage: case_test.sh DRAY SUITE_DIR CASE "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$1 suite=$2 case=$3 mpiexec=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$dray" render "$suite/cases/$case.json" -o "$tmp/1.exr" --threads 2 -q || fail=1
${mpiexec/ N / 3 } "$dray" render "$suite/cases/$case.json" -o "$tmp/3.exr" --threads 1 -q || fail=1
if cmp -s "$tmp/1.exr" "$tmp/3.exr"; then echo "ok   1 rank and 3 ranks are bitwise equal"; else
  echo "FAIL 1 rank and 3 ranks differ"; fail=1; fi
for n in 1 3; do
  if "$dray" diff "$tmp/$n.exr" "$suite/golden/$case.exr" --ref-variance "$suite/golden/$case.var.exr" \
       --heatmap "$tmp/heat.png"; then echo "ok   $n-rank render passes the Z-test"; else
    echo "FAIL $n-rank render fails the Z-test against golden/$case.exr"; fail=1; fi
done
exit $fail
