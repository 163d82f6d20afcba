#!/usr/bin/env bash
# The image is bitwise identical for 1, 2 and 3 ranks, 1 and 2 threads, static and dynamic
# tiles (DESIGN.md invariant 3), through the dray command under mpiexec.
# Usage: determinism_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -euo pipefail
dray=$1 scenes=$2 mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # run RANKS THREADS DISTRIBUTION SCENE OUT
  ${mpiexec/ N / $1 } "$dray" render "$scenes/$4.json" -o "$5" --threads "$2" --distribution "$3" \
    --set camera.width=64 --set camera.height=48 --spp 4 --tile-size 8 --quiet
}
fail=0
for scene in spheres cornell-box bunny; do
  run 1 1 static $scene "$tmp/$scene-ref.exr"
  for config in "1 2 static" "2 1 static" "2 2 dynamic" "3 1 static" "3 2 dynamic" "3 1 dynamic"; do
    set -- $config
    out="$tmp/$scene-$1x$2-$3.exr"
    run "$1" "$2" "$3" $scene "$out"
    if cmp -s "$tmp/$scene-ref.exr" "$out"; then
      echo "ok   $scene: $1 ranks x $2 threads ($3) is bitwise identical to 1 x 1"
    else
      echo "FAIL $scene: $1 ranks x $2 threads ($3) differs from 1 x 1"; fail=1
    fi
  done
done
exit $fail
