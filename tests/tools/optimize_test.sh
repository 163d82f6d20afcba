#!/usr/bin/env bash
# dray optimize: a small job recovers a known light position; a run killed mid-way and resumed
# ends bitwise where an uninterrupted run ends; outputs are written; bad jobs exit 2.
# Usage: optimize_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

job() {  # job FILE OUTPUT ITERATIONS [EXTRA JSON]
  cat > "$1" <<JSON
{ "scene": "$scenes/light-fit.json", "target": { "scene": "$scenes/light-truth.json", "spp": 64 },
  "params": { "lights.bulb.position": { "lr": 0.05, "min": -5, "max": 5 } },
  "optimizer": { "type": "adam", "iterations": $3, "lr_decay": 0.5 }, "loss": "l2", "spp": 8,
  "output": "$2", "snapshot_every": 10, "checkpoint_every": 5 ${4:-} }
JSON
}

example_job() {  # example_job NAME: scenes/NAME-fit.job.json on 2 ranks, output in $tmp/NAME, console in $tmp/NAME.out
  sed "s|\.\./out/$1-fit|$tmp/$1|; s|$1-fit.json|$scenes/$1-fit.json|; s|$1-truth.json|$scenes/$1-truth.json|" \
    "$scenes/$1-fit.job.json" > "$tmp/$1.json"
  ${mpiexec/ N / 2 } "$dray" optimize "$tmp/$1.json" --threads 1 > "$tmp/$1.out" 2>&1 || bad "$1 optimize exited $?"
}

within_2_percent() {  # within_2_percent OUTPUT PARAM TRUTH: the final value printed for PARAM
  local got
  got=$(awk -v n="$2" '$1 == n {print $2}' "$1")
  if awk -v g="$got" -v t="$3" 'BEGIN {e = (g - t) / t; exit !(e < 0.02 && e > -0.02)}'; then
    ok "$2 = $got, truth $3"; else bad "$2 = $got, truth $3"; cat "$1"; fi
}

# 1. A small optimization recovers the light (truth 0.6, 2.2, 0.4) within 2%, on 2 ranks.
job "$tmp/a.json" "$tmp/a" 100
${mpiexec/ N / 2 } "$dray" optimize "$tmp/a.json" --threads 1 > "$tmp/a.out" 2>&1 || bad "optimize exited $?"
for spec in "0 0.6" "1 2.2" "2 0.4"; do set -- $spec; within_2_percent "$tmp/a.out" "lights.bulb.position[$1]" "$2"; done
[ $(wc -l < "$tmp/a/progress.csv") = 101 ] && ok "progress.csv has a header and 100 rows" || bad "progress.csv rows"
head -1 "$tmp/a/progress.csv" | grep -q "iteration,loss,gradient_norm,dropped_samples,lights.bulb.position\[0\]" \
  && ok "progress.csv names the parameters" || bad "progress.csv header"
grep -q "^iter     1/100 " "$tmp/a.out" && grep -q "^iter   100/100 " "$tmp/a.out" && ok "the console counts iterations 1..100" \
  || bad "console iteration numbers"
[ "$(cut -d, -f1 "$tmp/a/progress.csv" | sed -n '2p;$p' | tr '\n' ' ')" = "1 100 " ] && ok "progress.csv rows are iterations 1..100" \
  || bad "progress.csv iteration numbers"
grep -q '"iteration": 100' "$tmp/a/checkpoint.json" && ok "the checkpoint is after iteration 100" || bad "checkpoint iteration"
[ -s "$tmp/a/snapshot-0001.png" ] && [ -s "$tmp/a/snapshot-0010.png" ] && [ -s "$tmp/a/snapshot-0100.png" ] && [ ! -e "$tmp/a/snapshot-0000.png" ] && [ -s "$tmp/a/target.exr" ] \
  && ok "snapshots and the target are written" || bad "snapshots"
grep -q '"position"' "$tmp/a/final-scene.json" && "$dray" render "$tmp/a/final-scene.json" -o "$tmp/final.png" -q \
  && ok "the final scene is valid and renders" || bad "final-scene.json"

# 1b. Silhouettes alone: an emitting sphere's x, y and radius (truth 0.35, 0.8, 0.55) within 2%, on
# 2 ranks, from the boundary term (its interior derivative is zero). One component per key.
example_job glow
for spec in "shapes.glow.center[0] 0.35" "shapes.glow.center[1] 0.8" "shapes.glow.radius 0.55"; do
  set -- $spec; within_2_percent "$tmp/glow.out" "$1" "$2"; done
grep -q '"center": \[' "$tmp/glow/final-scene.json" && ok "a component job writes the whole vector" || bad "glow final scene"

# boundary_samples 0 turns the visibility term off: the glowing sphere, whose interior derivative
# is zero, then stays where it starts (radius 0.8).
sed 's|"spp": 4,|"spp": 4, "boundary_samples": 0,|; s|"iterations": 100|"iterations": 5|; s|'"$tmp"'/glow|'"$tmp"'/glow0|' "$tmp/glow.json" > "$tmp/glow0.json"
"$dray" optimize "$tmp/glow0.json" > "$tmp/glow0.out" 2>&1 && grep -Eq "shapes.glow.radius +0.8$" "$tmp/glow0.out" \
  && ok "boundary_samples 0: no visibility gradient, the sphere stays" || { bad "boundary_samples 0"; cat "$tmp/glow0.out"; }

# 1c. Shadows alone: a blocker outside the camera's view found from its shadow (truth x -0.4, z -0.6).
example_job shadow
within_2_percent "$tmp/shadow.out" "shapes.blocker.corner[0]" -0.4
within_2_percent "$tmp/shadow.out" "shapes.blocker.corner[2]" -0.6

# 1d. A mesh's pose from one view: the bunny's x and rotation about y (truth 0.17, 20 degrees).
example_job pose
within_2_percent "$tmp/pose.out" "shapes.bunny.translate[0]" 0.17
within_2_percent "$tmp/pose.out" "shapes.bunny.rotate_y" 20

# 1e. A texture: the 128x128 albedo block recovered from the target, PSNR >= 30 dB against the
# truth image over all its texels (the camera sees the whole plane); the final scene names the
# written image and renders; the console and progress.csv summarise the block (49152 values).
example_job texture
psnr=$("$dray" diff "$tmp/texture/albedo.exr" "$scenes/textures/texture-truth.png" | awk '$1 == "PSNR" {print $2}')
awk -v p="$psnr" 'BEGIN {exit !(p >= 30)}' && ok "texture recovered: PSNR $psnr dB >= 30" || { bad "texture PSNR $psnr dB"; cat "$tmp/texture.out"; }
# The texels seen (a gradient in some iteration): every texel of the plane the camera sees whole;
# compared over them, the same PSNR.
seen=$("$dray" diff "$tmp/texture/albedo.exr" "$scenes/textures/texture-truth.png" --mask "$tmp/texture/albedo-seen.png" |
  sed -n 's/.*: \([0-9]*\) of 16384 pixels compared/\1/p')
masked=$("$dray" diff "$tmp/texture/albedo.exr" "$scenes/textures/texture-truth.png" --mask "$tmp/texture/albedo-seen.png" | awk '$1 == "PSNR" {print $2}')
[ "$seen" = 16384 ] && [ "$masked" = "$psnr" ] && ok "albedo-seen.png marks all 16384 texels seen; dray diff --mask over them: $masked dB" \
  || bad "seen texels $seen, masked PSNR $masked"
grep -q '"filename": "albedo.exr"' "$tmp/texture/final-scene.json" && "$dray" render "$tmp/texture/final-scene.json" -o "$tmp/texture/final.exr" -q \
  && ok "the final scene names albedo.exr and renders" || bad "texture final scene"
grep -Eq "textures.albedo.data +block, mean" "$tmp/texture.out" && [ $(wc -l < "$tmp/texture.out") -lt 200 ] \
  && head -1 "$tmp/texture/progress.csv" | grep -q "textures.albedo.data(mean),seconds" \
  && ok "a block is summarised in the console and progress.csv" || { bad "block summary"; head -5 "$tmp/texture.out"; }

# Large steps on the texture (its grid's Laplacian, per-texel Adam): 10 iterations lower the loss.
/usr/bin/python3 - "$tmp/texture.json" "$tmp/texture-ls.json" "$tmp/texture-ls" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["params"]["textures.albedo.data"]["large_steps"] = 1
j["optimizer"]["iterations"], j["output"] = 10, sys.argv[3]
json.dump(j, open(sys.argv[2], "w"))
PY
"$dray" optimize "$tmp/texture-ls.json" -q > /dev/null 2>&1 || bad "texture large_steps exited $?"
first=$(awk -F, 'NR == 2 {print $2}' "$tmp/texture-ls/progress.csv"); last=$(awk -F, 'END {print $2}' "$tmp/texture-ls/progress.csv")
awk -v a="$first" -v b="$last" 'BEGIN {exit !(b < 0.7 * a)}' && ok "texture with large_steps: loss $first -> $last" \
  || bad "texture with large_steps: loss $first -> $last"

# 1e'. An environment map's texels as a block: the final scene names the written sky.exr and renders.
cat > "$tmp/env-fit.json" <<JSON
{"camera": {"origin": [0, 0, 4], "target": [0, 0, 0], "fov_y": 35, "width": 16, "height": 16},
 "render": {"spp": 2, "max_depth": 2}, "materials": {"m": {"type": "diffuse", "reflectance": 0.7}},
 "shapes": [{"name": "ball", "type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}],
 "lights": [{"name": "sky", "type": "envmap", "width": 8, "height": 4, "value": 0.5}]}
JSON
sed 's/"value": 0.5/"value": [0.9, 0.6, 0.3]/' "$tmp/env-fit.json" > "$tmp/env-truth.json"
cat > "$tmp/env.json" <<JSON
{"scene": "$tmp/env-fit.json", "target": {"scene": "$tmp/env-truth.json", "spp": 16},
 "params": {"lights.sky.data": {"lr": 0.05, "min": 0}}, "optimizer": {"iterations": 5}, "spp": 2, "output": "$tmp/env"}
JSON
"$dray" optimize "$tmp/env.json" -q && grep -q '"filename": "sky.exr"' "$tmp/env/final-scene.json" && [ -f "$tmp/env/sky.exr" ] \
  && "$dray" render "$tmp/env/final-scene.json" -o "$tmp/env/final.png" -q \
  && ok "an environment map's block is written as sky.exr, named by the final scene" || bad "environment map block write-back"

# 1f. A sphere's roughness (GGX alpha, truth 0.2 from 0.5) from its highlight, within 2%.
example_job roughness
within_2_percent "$tmp/roughness.out" "materials.ball.alpha" 0.2

# 1g. Views: spot's pose (x, z and rotation about y; truth 0.25, -0.2, 40 degrees from 0, 0, 10) from
# four of the 64x48 views around it, on 2 ranks, within 2%.
views_job() {  # views_job FILE OUTPUT ITERATIONS [EXTRA JSON]
  local v="" o
  for o in "1.363, 1.6, 3.2237" "3.2237, 1.6, -1.363" "-1.363, 1.6, -3.2237" "-3.2237, 1.6, 1.363"; do
    v="$v${v:+,} { \"camera\": { \"origin\": [$o] }, \"target\": { \"scene\": \"$scenes/spot-views-truth.json\", \"spp\": 64 } }"
  done
  cat > "$1" <<JSON
{ "scene": "$scenes/spot-views-fit.json", "views": [ $v ],
  "params": { "shapes.spot.translate[0]": { "lr": 0.02 }, "shapes.spot.translate[2]": { "lr": 0.02 },
              "shapes.spot.rotate_y": { "lr": 2.0 } },
  "optimizer": { "type": "adam", "iterations": $3, "lr_decay": ${LR_DECAY:-0.03} }, "loss": "l2", "spp": 4,
  "output": "$2", "snapshot_every": 0, "checkpoint_every": 3 ${4:-} }
JSON
}
views_job "$tmp/views.json" "$tmp/views" 100
${mpiexec/ N / 2 } "$dray" optimize "$tmp/views.json" --threads 1 > "$tmp/views.out" 2>&1 || bad "views optimize exited $?"
for spec in "shapes.spot.translate[0] 0.25" "shapes.spot.translate[2] -0.2" "shapes.spot.rotate_y 40"; do
  set -- $spec; within_2_percent "$tmp/views.out" "$1" "$2"; done
[ -s "$tmp/views/target-0.exr" ] && [ -s "$tmp/views/target-3.exr" ] && ok "each view's rendered target is written" \
  || bad "view targets"

# 1h. A mesh's vertices with the large-steps preconditioner: the sphere of scenes/spot-shape-fit.json
# deformed toward spot for 24 iterations at 48x48 (batches of 4 of its 16 views): the loss falls, the
# Chamfer distance to spot (tools/chamfer) falls, and the final scene names the written mesh and
# renders. Stopped after 12 iterations on 1 rank and resumed on 2: the same mesh, bitwise.
for f in spot-shape-fit spot-shape-truth; do
  sed 's|"width": 128|"width": 48|; s|"height": 128|"height": 48|; s|"models/|"'"$scenes"'/models/|' "$scenes/$f.json" > "$tmp/$f.json"
done
sed 's|\.\./out/spot-shape-fit|'"$tmp"'/shape|; s|"iterations": 1000|"iterations": 24|; s|"checkpoint_every": 100|"checkpoint_every": 12|; s|"lr_decay": 0.3|"lr_decay": 1|; s|"spp": 64|"spp": 16|' \
  "$scenes/spot-shape-fit.job.json" | sed 's|"spot-shape-|"'"$tmp"'/spot-shape-|' > "$tmp/shape.json"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/shape.json" --threads 1 > "$tmp/shape.out" 2>&1 || { bad "shape optimize exited $?"; cat "$tmp/shape.out"; }
first=$(awk -F, 'NR == 2 {print $2}' "$tmp/shape/progress.csv"); last=$(awk -F, 'END {print $2}' "$tmp/shape/progress.csv")
awk -v a="$first" -v b="$last" 'BEGIN {exit !(b < 0.8 * a)}' && ok "vertices: loss $first -> $last" || bad "vertices: loss $first -> $last"
chamfer() { /usr/bin/python3 "$scenes/../tools/chamfer" "$1" "$scenes/models/spot.obj" --samples 1000 | sed 's/.*chamfer \([0-9.]*\) .*/\1/'; }
grep -q '"file": "blob.obj"' "$tmp/shape/final-scene.json" && ! grep -q '"matrix"' "$tmp/shape/final-scene.json" \
  && "$dray" render "$tmp/shape/final-scene.json" -o "$tmp/shape.png" -q && ok "the final scene names blob.obj and renders" \
  || bad "vertex block final scene"
# The starting sphere as the job sees it: the fit scene's matrix (scale 0.8, then a translation) applied.
{ awk '/^v / {printf "v %.6f %.6f %.6f\n", 0.8 * $2, 0.8 * $3 + 0.108, 0.8 * $4 + 0.19}' "$scenes/models/icosphere-4.obj"
  grep '^f' "$scenes/models/icosphere-4.obj"; } > "$tmp/sphere.obj"
c0=$(chamfer "$tmp/sphere.obj"); c1=$(chamfer "$tmp/shape/blob.obj")
awk -v a="$c0" -v b="$c1" 'BEGIN {exit !(b < 0.9 * a)}' && ok "vertices: Chamfer distance to spot $c0 -> $c1" \
  || bad "vertices: Chamfer distance $c0 -> $c1"
cp "$tmp/shape/blob.obj" "$tmp/blob-whole.obj"
sed 's|"iterations": 24|"iterations": 12|; s|'"$tmp"'/shape"|'"$tmp"'/shape2"|' "$tmp/shape.json" > "$tmp/shape12.json"
"$dray" optimize "$tmp/shape12.json" --threads 1 -q > /dev/null 2>&1 || bad "vertices: 12 iterations exited $?"
sed -i 's|"iterations": 12|"iterations": 24|' "$tmp/shape12.json"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/shape12.json" --threads 1 -q --resume > /dev/null 2>&1 || bad "vertices: resume exited $?"
cmp -s "$tmp/blob-whole.obj" "$tmp/shape2/blob.obj" && ok "vertices: 12 on 1 rank + 12 resumed on 2 = 24 on 2, bitwise" \
  || bad "vertices: the resumed mesh differs"

# 2a. Views in batches of 2 of 4 (a seeded choice per iteration): the trajectory bitwise the same on
# 1, 2 and 3 ranks; a run stopped after 3 iterations on 3 ranks and resumed on 2 ends bitwise where
# the uninterrupted runs end (a constant learning rate: the schedule depends on the iterations).
export LR_DECAY=1
for r in 1 2 3; do
  views_job "$tmp/layout$r.json" "$tmp/layout$r" 6 ', "batch": 2'
  ${mpiexec/ N / $r } "$dray" optimize "$tmp/layout$r.json" --threads $((r == 1 ? 2 : 1)) -q || bad "layout $r exited $?"
done
"$dray" optimize "$tmp/layout1.json" --threads 2 > "$tmp/layout1.out" 2>&1 || bad "layout console run exited $?"
batches=$(sed -n 's/^iter .*  views \([0-9,]*\)$/\1/p' "$tmp/layout1.out")
[ "$(echo "$batches" | grep -c '^[0-3],[0-3]$')" = 6 ] && [ "$(echo "$batches" | sort -u | wc -l)" -gt 1 ] \
  && ok "each iteration renders 2 of the 4 views, not always the same: $(echo $batches)" || bad "batches: $batches"
# 3 ranks in 2 view groups (of 2 ranks and 1), against the automatic one group of 3.
views_job "$tmp/layout3g.json" "$tmp/layout3g" 6 ', "batch": 2, "view_groups": 2'
${mpiexec/ N / 3 } "$dray" optimize "$tmp/layout3g.json" --threads 1 > "$tmp/layout3g.out" || bad "layout 3g exited $?"
grep -q "4 views, 2 per iteration, on 2 view groups of 1-2 ranks" "$tmp/layout3g.out" && ok "the view group layout is printed" \
  || { bad "view group layout line"; head -2 "$tmp/layout3g.out"; }
cmp -s "$tmp/layout1/checkpoint.json" "$tmp/layout2/checkpoint.json" && cmp -s "$tmp/layout1/checkpoint.json" "$tmp/layout3/checkpoint.json" \
  && cmp -s "$tmp/layout1/checkpoint.json" "$tmp/layout3g/checkpoint.json" \
  && ok "a batched multi-view trajectory is bitwise the same on 1x2, 2x1 (2 view groups), 3x1 (1 group) and 3x1 (2 groups of 2 and 1) ranks x threads" \
  || { bad "multi-view trajectories differ across layouts"; diff "$tmp/layout1/checkpoint.json" "$tmp/layout3/checkpoint.json" | head -5; }
views_job "$tmp/elastic.json" "$tmp/elastic" 3 ', "batch": 2'
${mpiexec/ N / 3 } "$dray" optimize "$tmp/elastic.json" --threads 1 -q || bad "elastic first part exited $?"
views_job "$tmp/elastic.json" "$tmp/elastic" 6 ', "batch": 2'
${mpiexec/ N / 2 } "$dray" optimize "$tmp/elastic.json" --threads 1 --resume -q || bad "elastic resume exited $?"
cmp -s "$tmp/layout1/checkpoint.json" "$tmp/elastic/checkpoint.json" \
  && ok "3 iterations on 3 ranks resumed on 2 end bitwise where 6 uninterrupted ones end" \
  || { bad "elastic resume differs"; diff "$tmp/layout1/checkpoint.json" "$tmp/elastic/checkpoint.json" | head -5; }
[ "$(grep -c . "$tmp/layout1/progress.csv")" = 7 ] && [ "$(cut -d, -f2 "$tmp/elastic/progress.csv")" = "$(cut -d, -f2 "$tmp/layout1/progress.csv")" ] \
  && ok "the resumed run's losses are the uninterrupted run's" || bad "elastic progress.csv"
unset LR_DECAY

# 2. Killed and resumed: the same final parameters, bitwise, as an uninterrupted run.
job "$tmp/full.json" "$tmp/full" 40
${mpiexec/ N / 2 } "$dray" optimize "$tmp/full.json" --threads 1 -q || bad "uninterrupted run exited $?"
job "$tmp/kill.json" "$tmp/kill" 40
${mpiexec/ N / 2 } "$dray" optimize "$tmp/kill.json" --threads 1 -q &
pid=$!
for i in $(seq 1 600); do  # until a checkpoint past iteration 10 exists
  it=$(grep -o '"iteration": *[0-9]*' "$tmp/kill/checkpoint.json" 2>/dev/null | grep -o '[0-9]*$')
  [ -n "$it" ] && [ "$it" -ge 10 ] && break
  sleep 0.05
done
# Kill every process of the job, mpiexec and each rank (Open MPI may put ranks in their own
# process groups), and wait until none is left.
pkill -9 -f "optimize $tmp/kill.json" 2>/dev/null
for i in $(seq 1 200); do pgrep -f "optimize $tmp/kill.json" > /dev/null || break; sleep 0.05; done
wait $pid 2>/dev/null
it=$(grep -o '"iteration": *[0-9]*' "$tmp/kill/checkpoint.json" | grep -o '[0-9]*$')
if [ "$it" -lt 40 ]; then ok "killed at a checkpoint of iteration $it (of 40)"; else echo "note: the run finished before the kill"; fi
${mpiexec/ N / 2 } "$dray" optimize "$tmp/kill.json" --threads 1 --resume > "$tmp/resume.out" || bad "resume exited $?"
grep -q "dray optimize: resuming after iteration $it of 40" "$tmp/resume.out" && ok "--resume says where it continues" \
  || { bad "--resume message"; head -3 "$tmp/resume.out"; }
if cmp -s "$tmp/full/checkpoint.json" "$tmp/kill/checkpoint.json" && \
   cmp -s <(sed 's|/kill/|/X/|' "$tmp/kill/final-scene.json") <(sed 's|/full/|/X/|' "$tmp/full/final-scene.json"); then
  ok "resumed run ends bitwise where the uninterrupted run ends"; else bad "resumed run differs"; diff "$tmp/full/checkpoint.json" "$tmp/kill/checkpoint.json" | head; fi
rows=$(cut -d, -f1 "$tmp/kill/progress.csv" | tail -n +2 | tr '\n' ' ')
[ "$rows" = "$(seq -s ' ' 1 40) " ] && ok "progress.csv of the resumed run has rows 1-40, none twice" || bad "resumed progress.csv: $rows"

# Resuming with other settings is refused, naming them; more iterations are allowed.
sed 's/"lr": 0.05/"lr": 0.07/; s/"spp": 8/"spp": 4/' "$tmp/kill.json" > "$tmp/changed.json"
sed -i "s|\"output\": \"[^\"]*\"|\"output\": \"$tmp/kill\"|" "$tmp/changed.json"
"$dray" optimize "$tmp/changed.json" --resume -q > "$tmp/out" 2> "$tmp/err"
code=$?
[ $code = 2 ] && grep -q "settings changed since the checkpoint" "$tmp/err" && grep -qF "/params/lights.bulb.position[0]/lr" "$tmp/err" \
  && grep -qF "/spp" "$tmp/err" && ok "a resume with another lr and spp is refused, naming both" || { bad "changed settings: exit $code"; cat "$tmp/err"; }
sed 's/"iterations": 40/"iterations": 42/' "$tmp/kill.json" > "$tmp/more.json"
"$dray" optimize "$tmp/more.json" --resume > "$tmp/out" 2> "$tmp/err" && grep -q "resuming after iteration 40 of 42" "$tmp/out" \
  && [ "$(tail -1 "$tmp/kill/progress.csv" | cut -d, -f1)" = 42 ] && ok "more iterations on --resume continue to 42" \
  || { bad "raising iterations"; cat "$tmp/err"; }

# Ctrl-C: a message naming the checkpoint, exit 130.
job "$tmp/int.json" "$tmp/int" 100000
"$dray" optimize "$tmp/int.json" -q > "$tmp/out" 2> "$tmp/err" &
pid=$!
for i in $(seq 1 600); do [ -s "$tmp/int/checkpoint.json" ] && break; sleep 0.05; done
kill -INT $pid
wait $pid
code=$?
[ $code = 130 ] && grep -q "dray optimize: interrupted after iteration [0-9]* of 100000; continue with --resume (from the checkpoint after iteration [0-9]*)" "$tmp/err" \
  && ok "Ctrl-C: exit 130 and where --resume continues" || { bad "Ctrl-C: exit $code"; cat "$tmp/err"; }

# checkpoint_every 0: never a checkpoint, not even at the end.
job "$tmp/none.json" "$tmp/none" 3 ', "seed": 1'
sed -i 's/"checkpoint_every": 5/"checkpoint_every": 0/' "$tmp/none.json"
"$dray" optimize "$tmp/none.json" -q && [ ! -e "$tmp/none/checkpoint.json" ] && [ -s "$tmp/none/final-scene.json" ] \
  && ok "checkpoint_every 0 writes no checkpoint" || bad "checkpoint_every 0"

# Absolute paths in the scene stay absolute in final-scene.json.
cat > "$tmp/abs-scene.json" <<JSON
{ "camera": { "origin": [278, 273, -800], "target": [278, 273, 0], "fov_y": 39.3, "width": 16, "height": 16 },
  "render": { "spp": 2, "max_depth": 2 },
  "shapes": [ { "name": "cbox", "type": "mesh", "file": "$scenes/models/cornell_box.obj" } ] }
JSON
echo '{ "scene": "'$tmp'/abs-scene.json", "target": { "scene": "'$tmp'/abs-scene.json", "spp": 4 }, "output": "'$tmp'/abs/out",
  "params": { "shapes.cbox.translate": { "lr": 0.1 } }, "optimizer": { "iterations": 2 } }' > "$tmp/abs.json"
"$dray" optimize "$tmp/abs.json" -q && grep -qF "\"file\": \"$scenes/models/cornell_box.obj\"" "$tmp/abs/out/final-scene.json" \
  && ok "an absolute mesh path stays absolute in final-scene.json" || { bad "absolute path"; grep file "$tmp/abs/out/final-scene.json"; }

# SGD (and relative L2) lower the loss too.
job "$tmp/sgd.json" "$tmp/sgd" 30 ', "seed": 3'
sed -i 's/"type": "adam"/"type": "sgd"/; s/"lr": 0.05/"lr": 0.3/; s/"loss": "l2"/"loss": "relative_l2"/' "$tmp/sgd.json"
"$dray" optimize "$tmp/sgd.json" -q || bad "sgd exited $?"
first=$(awk -F, 'NR == 2 {print $2}' "$tmp/sgd/progress.csv"); last=$(awk -F, 'END {print $2}' "$tmp/sgd/progress.csv")
awk -v a="$first" -v b="$last" 'BEGIN {exit !(b < 0.2 * a)}' && ok "sgd: loss $first -> $last" || bad "sgd: loss $first -> $last"

# 3. Bad jobs end with exit 2 and a message naming the file and key.
expect2() {  # expect2 DESCRIPTION TEXT JOB-JSON
  echo "$3" > "$tmp/bad.json"
  "$dray" optimize "$tmp/bad.json" > "$tmp/out" 2> "$tmp/err"
  code=$?
  if [ $code = 2 ] && grep -qF -- "$2" "$tmp/err"; then ok "$1"; else bad "$1: exit $code"; cat "$tmp/err"; fi
}
base='"scene": "'$scenes'/light-fit.json", "output": "'$tmp'/b"'
expect2 "unknown parameter" "/params/lights.bulb.colour: unknown parameter" \
  '{ '"$base"', "target": {"scene": "'$scenes'/light-truth.json"}, "params": {"lights.bulb.colour": {"lr": 1}} }'
expect2 "missing target image" "nope.exr" \
  '{ '"$base"', "target": {"image": "'$tmp'/nope.exr"}, "params": {"lights.bulb.position": {"lr": 1}} }'
expect2 "a misspelt key" "bad.json: /optimiser: unknown key" \
  '{ '"$base"', "optimiser": {}, "target": {"image": "x.exr"}, "params": {"lights.bulb.position": {"lr": 1}} }'
expect2 "a parameter from an OBJ" "cannot be written back" \
  '{ "scene": "'$scenes'/cornell-box.json", "output": "'$tmp'/b", "target": {"image": "x.exr"}, "params": {"materials.cbox.red.albedo": {"lr": 1}} }'
expect2 "an output folder that cannot be created" "bad.json: /output: " \
  '{ "scene": "'$scenes'/light-fit.json", "output": "/proc/nope/out", "target": {"scene": "'$scenes'/light-truth.json"}, "params": {"lights.bulb.position": {"lr": 1}} }'
tv='"target": {"scene": "'$scenes'/light-truth.json"}'
pos='"params": {"lights.bulb.position": {"lr": 1}}'
expect2 "target and views together" "bad.json: /target: give either \"target\" (one view) or \"views\"" \
  '{ '"$base"', '"$tv"', "views": [{'"$tv"'}], '"$pos"' }'
expect2 "batch without views" "bad.json: /batch: needs \"views\"" '{ '"$base"', '"$tv"', "batch": 1, '"$pos"' }'
expect2 "a batch larger than the views" "bad.json: /batch: must be in [1, 1]" '{ '"$base"', "views": [{'"$tv"'}], "batch": 2, '"$pos"' }'
expect2 "a view's unknown camera key" "bad.json: /views/0/camera/fov: unknown key" \
  '{ '"$base"', "views": [{"camera": {"fov": 30}, '"$tv"'}], '"$pos"' }'
expect2 "a view's camera looking at itself" "bad.json: /views/0/camera/target: must differ" \
  '{ '"$base"', "views": [{"camera": {"origin": [0, 1, 0], "target": [0, 1, 0]}, '"$tv"'}], '"$pos"' }'
expect2 "a view's weight of 0" "bad.json: /views/0/weight: must be > 0" '{ '"$base"', "views": [{'"$tv"', "weight": 0}], '"$pos"' }'
expect2 "the camera optimised with views" "bad.json: /params/camera.fov_y: the camera cannot be optimised" \
  '{ '"$base"', "views": [{'"$tv"'}], "params": {"camera.fov_y": {"lr": 1}} }'
"$dray" render "$scenes/light-truth.json" --set camera.width=16 --set camera.height=12 -o "$tmp/small.exr" -q
expect2 "a view's target of another size" "small.exr: the target is 16x12 but view 0 renders" \
  '{ '"$base"', "views": [{"target": {"image": "'$tmp'/small.exr"}}], '"$pos"' }'
expect2 "a view's mask of another size" "small.exr: the mask is 16x12 but view 0 renders" \
  '{ '"$base"', "views": [{'"$tv"', "mask": "'$tmp'/small.exr"}], '"$pos"' }'
"$dray" render "$scenes/light-fit.json" --spp 1 -o "$tmp/full.exr" -q
"$dray" diff "$tmp/full.exr" "$tmp/full.exr" --heatmap "$tmp/black.png" > /dev/null  # no error: all black
expect2 "a black mask" "black.png: the mask is black (no pixel to compare)" \
  '{ '"$base"', "views": [{'"$tv"', "mask": "'$tmp'/black.png"}], '"$pos"' }'
expect2 "large_steps on a non-vertex parameter" "bad.json: /params/lights.bulb.position/large_steps: applies to a whole mesh vertex block" \
  '{ '"$base"', '"$tv"', "params": {"lights.bulb.position": {"lr": 1, "large_steps": 10}} }'
expect2 "the vertices of a mesh with OBJ materials" "cannot be written back with its vertices" \
  '{ "scene": "'$scenes'/cornell-box.json", "output": "'$tmp'/b", "target": {"image": "x.exr"}, "params": {"shapes.cbox.vertices": {"lr": 1}} }'
job "$tmp/fresh.json" "$tmp/fresh" 5
"$dray" optimize "$tmp/fresh.json" --resume > "$tmp/out" 2> "$tmp/err"
[ $? = 2 ] && grep -q "no checkpoint to resume from" "$tmp/err" && ok "--resume without a checkpoint" || bad "--resume without a checkpoint"
exit $fail
