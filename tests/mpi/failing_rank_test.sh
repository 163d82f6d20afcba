#!/usr/bin/env bash
# An input missing on one rank only ends every rank with exit 2, and an exception in one rank's
# kernel (injected with DRAY_FAULT_TILE) with exit 3; the message printed once, within seconds
# (the ctest TIMEOUT catches a hang).
# Usage: failing_rank_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# expect_all CODE MESSAGE DESCRIPTION COMMAND...: 3 ranks end with CODE and MESSAGE printed once,
# within 20 s.
expect_all() {
  local want=$1 message=$2 what=$3; shift 3
  local start=$(date +%s)
  ${mpiexec/ N / 3 } "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local code=$? secs=$(( $(date +%s) - start ))
  local n_msgs=$(grep -c "$message" "$tmp/stderr" || true)
  if [ "$code" = "$want" ] && [ "$n_msgs" = 1 ] && [ "$secs" -le 20 ]; then
    echo "ok   $what: exit $want, one message, ${secs}s"
  else
    echo "FAIL $what: exit $code, $n_msgs messages, ${secs}s"; cat "$tmp/stderr"; fail=1
  fi
}

for bad_rank in 0 1 2; do
  # Each rank picks its own scene path: only $bad_rank names a file that does not exist.
  expect_all 2 "gone.json: cannot open: no such file" "missing file on rank $bad_rank" bash -c '
    if [ "$OMPI_COMM_WORLD_RANK" = "'$bad_rank'" ]; then scene="'$tmp'/gone.json"; else scene="'$scenes'/spheres.json"; fi
    exec "'$dray'" render "$scene" -o "'$tmp'/out.png" --quiet --set camera.width=32 --set camera.height=24'
done

# Tile 1 of the 32x24 image in 8-pixel tiles (12 tiles) is rank 1's under static distribution.
small="--set camera.width=32 --set camera.height=24 --spp 1"
check_fault() {  # check_fault DESCRIPTION COMMAND...
  local what=$1; shift
  DRAY_FAULT_TILE=1 expect_all 3 "injected fault in tile 1" "$what" -x DRAY_FAULT_TILE "$@"
}
check_fault "kernel exception in a static render" "$dray" render "$scenes/spheres.json" -o "$tmp/k.png" -q $small --tile-size 8
check_fault "kernel exception in a dynamic render" "$dray" render "$scenes/spheres.json" -o "$tmp/k.png" -q $small \
  --tile-size 8 --distribution dynamic
check_fault "kernel exception in a derivative render" "$dray" render "$scenes/spheres.json" -o "$tmp/k.png" -q $small \
  --tile-size 8 --wrt materials.red.albedo
check_fault "kernel exception in gradcheck" "$dray" gradcheck "$scenes/spheres.json" $small --param materials.red.albedo[0]
cat >"$tmp/job.json" <<JOB
{ "scene": "$scenes/light-fit.json", "target": { "scene": "$scenes/light-truth.json", "spp": 4 },
  "params": { "lights.bulb.intensity": { "lr": 0.1 } }, "optimizer": { "iterations": 3 }, "spp": 1, "output": "$tmp/opt" }
JOB
check_fault "kernel exception in optimize" "$dray" optimize "$tmp/job.json" --quiet
exit $fail
