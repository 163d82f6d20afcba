#!/usr/bin/env bash
# The image is bitwise identical for 1, 2 and 3 ranks, 1 and 2 threads, static and dynamic
# tiles (DESIGN.md invariant 3), through the dray command under mpiexec.
# Usage: determinism_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -euo pipefail
dray=$1 scenes=$2 mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # run RANKS THREADS DISTRIBUTION SCENE OUT [MORE ARGS]
  local ranks=$1 threads=$2 dist=$3 scene=$4 out=$5; shift 5
  ${mpiexec/ N / $ranks } "$dray" render "$scenes/$scene.json" -o "$out" --threads "$threads" --distribution "$dist" \
    --set camera.width=64 --set camera.height=48 --spp 4 --tile-size 8 --quiet "$@"
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
# Derivative images: 1 x 1 against 3 ranks x 2 threads and 2 ranks x 1 (dynamic).
wrt="--wrt materials.red.albedo --wrt lights.key.position[1] --wrt shapes.mid.center[0]"
run 1 1 static spheres "$tmp/d-ref.exr" $wrt
for config in "3 2 static" "2 1 dynamic"; do
  set -- $config
  run "$1" "$2" "$3" spheres "$tmp/d-$1x$2.exr" $wrt
  for p in "materials.red.albedo[0]" "materials.red.albedo[2]" "lights.key.position[1]" "shapes.mid.center[0]"; do
    f=$(echo "$p" | sed 's/\[/./; s/\]//')  # the shell-safe file name: NAME[i] -> NAME.i
    if cmp -s "$tmp/d-ref.d.$f.exr" "$tmp/d-$1x$2.d.$f.exr" && [ -s "$tmp/d-ref.d.$f.exr" ]; then
      echo "ok   derivative $p: $1 ranks x $2 threads ($3) is bitwise identical to 1 x 1"
    else
      echo "FAIL derivative $p: $1 ranks x $2 threads ($3) differs from 1 x 1"; fail=1
    fi
  done
done
# same LABEL A B: A and B (in $tmp) are both written and bitwise identical.
same() {
  if cmp -s "$tmp/$2" "$tmp/$3" && [ -s "$tmp/$2" ]; then
    echo "ok   $1: $3 is bitwise identical to $2"
  else
    echo "FAIL $1: $3 differs from $2"; fail=1
  fi
}
# A Gaussian pixel filter (samples spread over 4 x 4 pixels, edges splatted over the footprint):
# the image and an edge-moving derivative, 1 x 1 against 3 ranks x 2 threads.
run 1 1 static spheres "$tmp/g-ref.exr" --set render.filter=gaussian --wrt shapes.mid.center[0]
run 3 2 static spheres "$tmp/g-3x2.exr" --set render.filter=gaussian --wrt shapes.mid.center[0]
same "gaussian filter" g-ref.exr g-3x2.exr
same "gaussian filter" g-ref.d.shapes.mid.center.0.exr g-3x2.d.shapes.mid.center.0.exr
# The particle tracer (light paths interleaved over ranks, splats summed exactly): the caustic scene,
# 1 x 1 against 3 ranks x 2 threads and 2 x 1, with a Gaussian filter.
run 1 1 static caustic "$tmp/p-ref.exr" --set render.integrator=ptracer --set render.filter=gaussian
for config in "3 2 static" "2 1 dynamic"; do
  set -- $config
  run "$1" "$2" "$3" caustic "$tmp/p-$1x$2.exr" --set render.integrator=ptracer --set render.filter=gaussian
  if cmp -s "$tmp/p-ref.exr" "$tmp/p-$1x$2.exr" && [ -s "$tmp/p-ref.exr" ]; then
    echo "ok   ptracer: $1 ranks x $2 threads is bitwise identical to 1 x 1"
  else
    echo "FAIL ptracer: $1 ranks x $2 threads differs from 1 x 1"; fail=1
  fi
done
# The sampler plugins (their strata per pixel, render.sampler): the image and an edge-moving
# derivative, 1 x 1 against 3 ranks x 2 threads; each image differs from the independent sampler's.
for sampler in stratified multijitter orthogonal ldsampler; do
  run 1 1 static spheres "$tmp/s-ref.exr" --set render.sampler=$sampler --wrt shapes.mid.center[0]
  run 3 2 static spheres "$tmp/s-3x2.exr" --set render.sampler=$sampler --wrt shapes.mid.center[0]
  same "$sampler sampler" s-ref.exr s-3x2.exr
  same "$sampler sampler" s-ref.d.shapes.mid.center.0.exr s-3x2.d.shapes.mid.center.0.exr
  if cmp -s "$tmp/s-ref.exr" "$tmp/spheres-ref.exr"; then
    echo "FAIL $sampler sampler: the image is the independent sampler's"; fail=1
  fi
done
exit $fail
