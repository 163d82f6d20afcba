#!/usr/bin/env bash
# dray optimize as a job runner: multi-view trajectories bitwise the same on any layout, elastic
# resume, kill and resume, Ctrl-C, checkpoints, outputs, bad jobs exit 2. (Convergence: optimize_fit_test.sh.)
# Usage: optimize_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
source "$(dirname "$0")/optimize_lib.sh"

# 2a. Views in batches of 2 of 4 (a seeded choice per iteration): the trajectory bitwise the same on
# 1, 2 and 3 ranks; a run stopped after 3 iterations on 3 ranks and resumed on 2 ends bitwise where
# the uninterrupted runs end (a constant learning rate: the schedule depends on the iterations).
export LR_DECAY=1
for r in 1 2 3; do
  views_job "$tmp/layout$r.json" "$tmp/layout$r" 6 ', "batch": 2'
  ${mpiexec/ N / $r } "$dray" optimize "$tmp/layout$r.json" --threads $((r == 1 ? 2 : 1)) -q || bad "layout $r exited $?"
done
"$dray" optimize "$tmp/layout1.json" --threads 2 --force > "$tmp/layout1.out" 2>&1 || bad "layout console run exited $?"
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
[ $code = 2 ] && grep -q "settings changed since the checkpoint" "$tmp/err" && grep -qF "/params/lights.bulb.position/lr" "$tmp/err" \
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
expect2 "a view's unknown sensor" "bad.json: /views/0/sensor: no sensor \"side\": the scene has 0 (camera)" \
  '{ '"$base"', "views": [{"sensor": "side", '"$tv"'}], '"$pos"' }'
expect2 "a view with a sensor and camera keys" "bad.json: /views/0/camera: give either \"sensor\" or \"camera\"" \
  '{ '"$base"', "views": [{"sensor": 0, "camera": {"fov_y": 30}, '"$tv"'}], '"$pos"' }'
echo '{ "scene": "'$scenes'/light-fit.json", "output": "'$tmp'/sensor-views", "views": [{"sensor": "camera", '"$tv"'},
  {"sensor": 0, '"$tv"', "weight": 2}], '"$pos"',
  "optimizer": { "iterations": 2 }, "spp": 2 }' > "$tmp/sensor-views.json"
"$dray" optimize "$tmp/sensor-views.json" -q --threads 1 && ok "views naming the scene's sensor by name and index" || bad "sensor views exited $?"
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
expect2 "the scale-independent loss with a path integrator" "bad.json: /loss: scale_independent_l2 needs the whole image" \
  '{ '"$base"', '"$tv"', '"$pos"', "loss": "scale_independent_l2" }'
expect2 "upsample on a vector" "bad.json: /params/lights.bulb.position/upsample: only a whole bitmap texture" \
  '{ '"$base"', '"$tv"', "params": {"lights.bulb.position": {"lr": 1, "upsample": [2]}} }'
# A medium's density grid (the smoke job, 2 iterations at 16 spp targets): bitwise the same trajectory
# on 1 rank x 2 threads and 2 ranks x 1 thread, the grid written back as a .vol the final scene names.
python3 - "$scenes" "$tmp" <<'PY'
import json, sys
scenes, tmp = sys.argv[1], sys.argv[2]
j = json.load(open(scenes + "/smoke-fit.job.json"))
j["optimizer"]["iterations"], j["scene"], j["output"] = 2, scenes + "/smoke-fit.json", tmp + "/smoke1"
for v in j["views"]:
    v["target"] = {"scene": scenes + "/smoke.json", "spp": 16}
json.dump(j, open(tmp + "/smoke.json", "w"))
PY
"$dray" optimize "$tmp/smoke.json" --threads 2 -q > /dev/null || bad "smoke job on 1 rank exited $?"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/smoke.json" -o "$tmp/smoke2" --threads 1 -q > /dev/null || bad "smoke job on 2 ranks exited $?"
cmp -s "$tmp/smoke1/smoke.sigma_t.vol" "$tmp/smoke2/smoke.sigma_t.vol" && cmp -s "$tmp/smoke1/checkpoint.json" "$tmp/smoke2/checkpoint.json" \
  && grep -q '"filename": "smoke.sigma_t.vol"' "$tmp/smoke1/final-scene.json" \
  && ok "a density grid's trajectory is bitwise the same on 1x2 and 2x1 ranks x threads, written back as a .vol" \
  || bad "the smoke job's grids differ across layouts (or the final scene does not name its .vol)"
# Its optimizer state sharded over 3 ranks (each a third of the grid's moments): stopped after
# iteration 1 and resumed on 1 rank (which reads the whole of each moment) and on 2 (halves), bitwise.
for resumed in 1 2; do
  sed 's/"iterations": 2/"iterations": 1/' "$tmp/smoke.json" > "$tmp/smoke-first.json"
  grep -q '"iterations": 1' "$tmp/smoke-first.json" || bad "the smoke job's iterations not found"
  ${mpiexec/ N / 3 } "$dray" optimize "$tmp/smoke-first.json" -o "$tmp/smoke-r$resumed" --threads 1 -q > /dev/null || bad "smoke job on 3 ranks exited $?"
  ${mpiexec/ N / $resumed } "$dray" optimize "$tmp/smoke.json" -o "$tmp/smoke-r$resumed" --threads 1 --resume -q > /dev/null \
    || bad "smoke resume on $resumed exited $?"
  cmp -s "$tmp/smoke1/checkpoint.json" "$tmp/smoke-r$resumed/checkpoint.json" \
    && ok "a density grid's sharded state from 3 ranks resumed on $resumed ends bitwise where 1 rank ends" \
    || bad "the smoke job resumed on $resumed from 3 ranks differs"
done
# A particle tracer's job (scenes/lens.json, its exit face turned 2° about z, fitted back against
# the unturned lens's caustic): bitwise the same on 1x2 and 2x1 ranks x threads.
lens_scenes
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
json.dump({"scene": tmp + "/lens-start.json", "target": {"scene": tmp + "/lens-truth.json", "spp": 32},
           "params": {"shapes.lens.rotate_z": {"lr": 0.2}}, "optimizer": {"type": "adam", "iterations": 6},
           "loss": "l2", "spp": 8, "output": tmp + "/lens1"}, open(tmp + "/lens.job.json", "w"))
PY
"$dray" optimize "$tmp/lens.job.json" --threads 2 -q > /dev/null || bad "lens job on 1 rank exited $?"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/lens.job.json" -o "$tmp/lens2" --threads 1 -q > /dev/null || bad "lens job on 2 ranks exited $?"
cmp -s "$tmp/lens1/checkpoint.json" "$tmp/lens2/checkpoint.json" \
  && ok "a particle tracer's trajectory (ptracer, a lens turned) is bitwise the same on 1x2 and 2x1 ranks x threads" \
  || bad "the lens job's trajectories differ across layouts"
# The caustic job at a tiny size: a 17² lens grid displaced by a 4² heightmap, upsampled after
# iterations 2 and 4 (to 16²), the scale-independent loss against a target twice the film's size
# (averaged down): bitwise the same on 1x2, 2x1 and 4x1 (oversubscribed) ranks x threads, and
# resumed across an upsampling.
python3 - "$scenes" "$tmp" <<'PY'
import json, sys
scenes, tmp = sys.argv[1:]
s = json.load(open(scenes + "/caustic-wave.json"))
s["camera"].update(width=48, height=48)
s["shapes"][1]["file"] = scenes + "/models/slab-open.obj"
s["shapes"][2]["resolution"] = 17
s["shapes"][2]["displacement"]["scale"] = 0.01
s["textures"]["heightmap"] = {"type": "bitmap", "filename": scenes + "/textures/texture-truth.png"}
json.dump(s, open(tmp + "/caustic-truth.json", "w"))
s["camera"].update(width=24, height=24)
s["textures"]["heightmap"] = {"type": "bitmap", "width": 4, "height": 4, "value": [0, 0, 0]}
json.dump(s, open(tmp + "/caustic-start.json", "w"))
def job(out, iterations):
    return {"scene": tmp + "/caustic-start.json", "target": {"image": tmp + "/caustic-target.exr"},
            "params": {"textures.heightmap.data": {"lr": 2e-3, "min": -0.01, "max": 0.01, "upsample": [2, 4]}},
            "optimizer": {"type": "adam", "iterations": iterations}, "loss": "scale_independent_l2", "spp": 4,
            "output": tmp + "/" + out, "checkpoint_every": 1, "snapshot_every": 0}
json.dump(job("caustic1", 6), open(tmp + "/caustic.job.json", "w"))
json.dump(job("caustic-resumed", 3), open(tmp + "/caustic-first.job.json", "w"))
json.dump(job("caustic-resumed", 6), open(tmp + "/caustic-rest.job.json", "w"))
PY
"$dray" render "$tmp/caustic-truth.json" --spp 16 -o "$tmp/caustic-target.exr" -q > /dev/null || bad "caustic target exited $?"
"$dray" optimize "$tmp/caustic.job.json" --threads 2 -q > /dev/null || bad "caustic job on 1 rank exited $?"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/caustic.job.json" -o "$tmp/caustic2" --threads 1 -q > /dev/null || bad "caustic job on 2 ranks exited $?"
${mpiexec/ N / 4 } "$dray" optimize "$tmp/caustic.job.json" -o "$tmp/caustic4" --threads 1 -q > /dev/null || bad "caustic job on 4 ranks exited $?"
"$dray" optimize "$tmp/caustic-first.job.json" --threads 2 -q > /dev/null || bad "caustic job's first 3 iterations exited $?"
"$dray" optimize "$tmp/caustic-rest.job.json" --threads 2 -q --resume > /dev/null || bad "caustic job resumed exited $?"
python3 - "$tmp" "$(dirname "$0")" <<'PY' && ok "a heightmap job (upsampled twice, scale-independent loss, target averaged down) is bitwise the same on 1x2, 2x1, 4x1 ranks x threads and resumed across an upsampling" || bad "the caustic job's trajectories differ"
import json, sys
tmp = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import checkpoint_arrays
runs = [checkpoint_arrays.load(f"{tmp}/{d}") for d in ("caustic1", "caustic2", "caustic4", "caustic-resumed")]
assert all(r["iteration"] == 6 for r in runs), [r["iteration"] for r in runs]
heightmap = runs[0]["blocks"][-1]
assert heightmap["key"] == "textures.heightmap.data" and len(heightmap["value"]) == 16 * 16 * 3, len(heightmap["value"])  # 4² upsampled twice
assert any(v != 0 for v in heightmap["value"]) and all(abs(v) <= 0.01 for v in heightmap["value"])
for r in runs[1:]:
    for a, b in zip(r["blocks"], runs[0]["blocks"]):
        assert all(a[q] == b[q] for q in ("value", "m", "v", "seen")), a["key"]
final = json.load(open(f"{tmp}/caustic1/final-scene.json"))
assert final["textures"]["heightmap"]["filename"] == "heightmap.exr", final["textures"]["heightmap"]
PY
job "$tmp/fresh.json" "$tmp/fresh" 5
"$dray" optimize "$tmp/fresh.json" --resume > "$tmp/out" 2> "$tmp/err"
[ $? = 2 ] && grep -q "no checkpoint to resume from" "$tmp/err" && ok "--resume without a checkpoint" || bad "--resume without a checkpoint"
exit $fail
