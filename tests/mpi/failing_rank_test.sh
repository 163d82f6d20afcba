#!/usr/bin/env bash
# An input missing on one rank only ends every rank with exit 2, the message printed once,
# within seconds (the ctest TIMEOUT catches a hang).
# Usage: failing_rank_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$1 scenes=$2 mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for bad_rank in 0 1 2; do
  # Each rank picks its own scene path: only $bad_rank names a file that does not exist.
  start=$(date +%s)
  ${mpiexec/ N / 3 } bash -c '
    if [ "$OMPI_COMM_WORLD_RANK" = "'$bad_rank'" ]; then scene="'$tmp'/gone.json"; else scene="'$scenes'/spheres.json"; fi
    exec "'$dray'" render "$scene" -o "'$tmp'/out.png" --quiet --set camera.width=32 --set camera.height=24' \
    >"$tmp/stdout" 2>"$tmp/stderr"
  code=$?
  secs=$(( $(date +%s) - start ))
  n_msgs=$(grep -c "gone.json: cannot open: no such file" "$tmp/stderr" || true)
  if [ "$code" = 2 ] && [ "$n_msgs" = 1 ] && [ "$secs" -le 20 ]; then
    echo "ok   missing file on rank $bad_rank: exit 2, one message, ${secs}s"
  else
    echo "FAIL missing file on rank $bad_rank: exit $code, $n_msgs messages, ${secs}s"; cat "$tmp/stderr"; fail=1
  fi
done
exit $fail
