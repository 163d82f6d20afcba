#!/usr/bin/env bash
# dray gradcheck across edges: silhouettes and shadows moving, forward mode against central
# differences over several seeds (label slow: many samples; the command's flags and exit codes
# are cli_test.sh's).
# Usage: gradcheck_edges_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2")
source "$(dirname "$0")/cli_lib.sh"

expect 0 "gradcheck on silhouettes (5 seeds, h and h/2, 64-spp differences)" "$dray" gradcheck "$scenes/glow-fit.json" \
  --param shapes.glow.center shapes.glow.radius camera.origin[2] --step 0.01 --seeds 5 --fd-spp 64
has "$tmp/stdout" "over 5 seeds" "the seeds are reported"
# With several seeds the reverse column is the seeds' mean as the forward one is (issue 32: it was
# seed 1's alone): the two agree to float rounding, not just to noise.
awk '$1 == "shapes.glow.radius" {r = ($4 - $3) / $3; if (r < 0) r = -r; exit !(r < 1e-5)}' "$tmp/stdout" \
  && echo "ok   gradcheck --seeds: reverse is the seeds' mean, as forward" \
  || { echo "FAIL gradcheck --seeds: reverse vs forward"; grep glow.radius "$tmp/stdout"; fail=1; }
expect 0 "gradcheck on a light's position (shadow edges, direct light)" "$dray" gradcheck "$scenes/spheres.json" \
  --set camera.width=80 --set camera.height=60 --spp 16 --set render.max_depth=1 --param lights.key.position \
  --step 0.01 --seeds 5 --fd-spp 64
expect 0 "gradcheck on a sphere's pose (shadows of the point light, the sphere lamp and the sky; the mirror made diffuse)" \
  "$dray" gradcheck "$scenes/spheres.json" --set camera.width=80 --set camera.height=60 --spp 16 --set render.max_depth=1 \
  --set 'materials.steel={"type":"diffuse","albedo":[0.5,0.5,0.5]}' --param shapes.right.radius shapes.right.center[0] \
  --step 0.01 --seeds 8 --fd-spp 128 --boundary-samples 50000
exit $fail
