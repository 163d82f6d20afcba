#!/usr/bin/env bash
# The statistical comparison passes for another seed of the same scene and fails for a small
# real change: an albedo 5% off, either way.
# Usage: sensitivity_test.sh DRAY SUITE_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$1 suite=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check WANT_EXIT DESCRIPTION RENDER_ARGS...
  local want=$1 what=$2; shift 2
  "$dray" render "$suite/cases/spheres.json" -o "$tmp/t.exr" -q "$@"
  "$dray" diff "$tmp/t.exr" "$suite/golden/spheres.exr" --ref-variance "$suite/golden/spheres.var.exr" > "$tmp/out"
  local got=$?
  if [ $got = $want ]; then echo "ok   $what (exit $got, $(grep 'global z' "$tmp/out" | xargs))"; else
    echo "FAIL $what: exit $got, expected $want"; cat "$tmp/out"; fail=1; fi
}
for seed in 7 8 9; do check 0 "seed $seed passes" --seed $seed; done
check 1 "floor albedo 5% high fails" --set 'materials.floor.albedo=[0.735, 0.735, 0.735]'
check 1 "floor albedo 5% low fails" --set 'materials.floor.albedo=[0.665, 0.665, 0.665]'
check 1 "red albedo 5% high fails" --set 'materials.red.albedo=[0.84, 0.1575, 0.105]'
exit $fail
