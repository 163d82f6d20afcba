#!/usr/bin/env bash
# dray optimize's outputs as a user meets them (issue 32): an earlier run's folder is refused (exit 2,
# nothing touched) or cleared with --force; -o, --set and -D; steps projected onto each parameter's
# domain (the final scene renders); a start outside [min, max] refused; a signal (SIGTERM, SIGPIPE)
# leaves a report saying where the run stopped; the report's headline (best, final, smoothed loss)
# and a batch's views labelled by their index; --quiet still prints the result; held-out views.
# Relative files anywhere in the scene are named in the final scene relative to the output folder.
# Usage: optimize_output_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
source "$(dirname "$0")/optimize_lib.sh"

# 1. An earlier run's folder: refused, untouched; --force clears dray's files (not the user's).
job "$tmp/a.json" "$tmp/a" 4 ', "seed": 1'
sed -i 's/"snapshot_every": 10/"snapshot_every": 1/' "$tmp/a.json"
"$dray" optimize "$tmp/a.json" -q > /dev/null || bad "first run exited $?"
echo "mine" > "$tmp/a/notes.txt"
before=$(cd "$tmp/a" && ls -l --time-style=+%s.%N | md5sum)
"$dray" optimize "$tmp/a.json" -q > "$tmp/out" 2> "$tmp/err"
code=$?
after=$(cd "$tmp/a" && ls -l --time-style=+%s.%N | md5sum)
[ $code = 2 ] && grep -q "a.json: /output: $tmp/a: holds an earlier run (.*): continue it with --resume, or start again with --force" "$tmp/err" \
  && [ "$before" = "$after" ] && ok "a second run into the folder: exit 2, nothing touched" || { bad "second run: exit $code"; cat "$tmp/err"; }
sed -i 's/"iterations": 4/"iterations": 2/' "$tmp/a.json"
"$dray" optimize "$tmp/a.json" -q --force > /dev/null || bad "--force run exited $?"
[ -e "$tmp/a/snapshot-0002.png" ] && [ ! -e "$tmp/a/snapshot-0003.png" ] && [ ! -e "$tmp/a/snapshot-0004.png" ] \
  && [ "$(wc -l < "$tmp/a/progress.csv")" = 3 ] && [ -e "$tmp/a/notes.txt" ] \
  && ok "--force: the earlier run's files gone, the user's kept" || { bad "--force"; ls "$tmp/a"; }

# 2. -o, --set and -D.
job "$tmp/o.json" "$tmp/unused" 2
"$dray" optimize "$tmp/o.json" -q -o "$tmp/elsewhere" --set render.max_depth=1 > /dev/null || bad "-o --set exited $?"
[ -s "$tmp/elsewhere/final-scene.json" ] && [ ! -e "$tmp/unused" ] && grep -q '"max_depth": 1' "$tmp/elsewhere/final-scene.json" \
  && ok "-o names the output; --set edits the scene (kept in final-scene.json)" || bad "-o / --set"
"$dray" optimize "$tmp/o.json" -q -o "$tmp/d" -D spp=4 > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "\-D defines values of Mitsuba XML scenes; this scene is JSON" "$tmp/err" \
  && ok "-D on a JSON scene: exit 2" || { bad "-D on JSON"; cat "$tmp/err"; }

# 3. Domains: Adam's steps pass 0 for a roughness with no bounds; the step lands inside (alpha > 0)
# and the final scene is one dray renders. A start outside [min, max] is refused.
cat > "$tmp/alpha.json" <<JSON
{ "scene": "$scenes/roughness-fit.json", "target": { "scene": "$scenes/roughness-truth.json", "spp": 16 },
  "params": { "materials.ball.alpha": { "lr": 1.0 } }, "optimizer": { "iterations": 3 }, "spp": 2,
  "output": "$tmp/alpha", "snapshot_every": 0 }
JSON
"$dray" optimize "$tmp/alpha.json" -q > "$tmp/out" 2>&1
code=$?
"$dray" render "$tmp/alpha/final-scene.json" --spp 1 -q -o "$tmp/alpha.png" 2> "$tmp/err"
alpha=$(awk -F, 'END {print $5}' "$tmp/alpha/progress.csv")
[ $code = 0 ] && [ -s "$tmp/alpha.png" ] && awk -v a="$alpha" 'BEGIN {exit !(a > 0)}' \
  && ok "alpha stepped past 0 is projected (alpha $alpha); final-scene.json renders" || { bad "projection: exit $code, alpha $alpha"; cat "$tmp/out" "$tmp/err"; }
job "$tmp/start.json" "$tmp/start" 2
sed -i 's/"min": -5, "max": 5/"min": 2, "max": 5/' "$tmp/start.json"
"$dray" optimize "$tmp/start.json" -q > "$tmp/out" 2> "$tmp/err"
[ $? = 2 ] && grep -q "start.json: /params/lights.bulb.position: lights.bulb.position\[0\] starts at .*, outside the job's \[min, max\] = \[2, 5\]" "$tmp/err" \
  && [ ! -e "$tmp/start" ] && ok "a start outside [min, max]: exit 2, the key named" || { bad "start outside"; cat "$tmp/err"; }

# 4. Signals: the report says where the run stopped, and it resumes.
for sig in TERM INT; do
  job "$tmp/s$sig.json" "$tmp/s$sig" 100000
  "$dray" optimize "$tmp/s$sig.json" -q > /dev/null 2>&1 &
  pid=$!
  for i in $(seq 1 600); do [ -s "$tmp/s$sig/checkpoint.json" ] && break; sleep 0.05; done
  kill -$sig $pid
  wait $pid
  code=$?
  grep -q 'id="status">interrupted at iteration [0-9]* (continue it with --resume' "$tmp/s$sig/report.html" && [ $code = 130 ] \
    && ok "SIG$sig: exit 130, the report says interrupted" || { bad "SIG$sig: exit $code"; grep -o 'id="status">[^<]*' "$tmp/s$sig/report.html"; }
done
job "$tmp/pipe.json" "$tmp/pipe" 100000
sed -i 's/"snapshot_every": 10/"snapshot_every": 1/' "$tmp/pipe.json"
timeout 120 "$dray" optimize "$tmp/pipe.json" 2> /dev/null | head -c 1 > /dev/null
codes=("${PIPESTATUS[@]}")
[ "${codes[0]}" = 130 ] && grep -q 'id="status">interrupted at iteration' "$tmp/pipe/report.html" \
  && ok "a closed pipe (| head): exit 130, the report says interrupted" || { bad "SIGPIPE: exit ${codes[0]}"; grep -o 'id="status">[^<]*' "$tmp/pipe/report.html"; }
# Killed once it has written a checkpoint of its own (a fixed sleep raced the start-up of a
# sanitizer build on a loaded machine: the signal came before dray's handler was installed).
before=$(stat -c %y "$tmp/sTERM/checkpoint.json")
"$dray" optimize "$tmp/sTERM.json" -q --resume > /dev/null 2>&1 &
pid=$!
for i in $(seq 1 1200); do [ "$(stat -c %y "$tmp/sTERM/checkpoint.json")" != "$before" ] && break; sleep 0.05; done
kill -TERM $pid; wait $pid
[ $? = 130 ] && ok "an interrupted run resumes" || bad "resume after SIGTERM"

# 5. The report's headline and views; --quiet prints the result.
job "$tmp/h.json" "$tmp/h" 12
"$dray" optimize "$tmp/h.json" -q > "$tmp/out" 2>&1 || bad "headline run exited $?"
grep -q 'id="loss">best [0-9.e+-]* (iteration [0-9]*), final [0-9.e+-]*, final mean of 10 iterations' "$tmp/h/report.html" \
  && grep -q 'mean of 10</title>' "$tmp/h/report.html" && ok "report: best, final and smoothed loss" || bad "report headline"
grep -q "^  lights.bulb.position\[0\] " "$tmp/out" && grep -q "^wrote $tmp/h/final-scene.json" "$tmp/out" \
  && ok "--quiet prints the final values" || { bad "--quiet"; cat "$tmp/out"; }
views_job "$tmp/v.json" "$tmp/v" 3 ', "batch": 1, "seed": 5'
sed -i 's/"snapshot_every": 0/"snapshot_every": 1/' "$tmp/v.json"
"$dray" optimize "$tmp/v.json" -q > /dev/null 2>&1 || bad "batch run exited $?"
last=$(grep -o 'iteration 3, view [0-9]' "$tmp/v/report.html" | head -1 | awk '{print $4}')
[ -n "$last" ] && grep -q "<h2>View $last: target, current, difference</h2>" "$tmp/v/report.html" \
  && [ "$(grep -o 'iteration [123], view [0-9]' "$tmp/v/report.html" | sort -u | wc -l)" = 3 ] \
  && ok "a batch's snapshots labelled by their view (last: view $last)" || { bad "batch views"; grep -o '<h2>View [0-9]*\|iteration [0-9]*, view [0-9]' "$tmp/v/report.html"; }

# 6. A relative file anywhere in the scene (here a material's inline bitmap) is named in the final
# scene relative to the output folder, which is elsewhere.
mkdir -p "$tmp/sc" && cp "$scenes/textures/texture-truth.png" "$tmp/sc/tex.png"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); s["materials"]["wall"]["albedo"] = {"type": "bitmap", "filename": "tex.png"}; json.dump(s, open(sys.argv[2], "w"))' \
  "$scenes/light-fit.json" "$tmp/sc/scene.json"
job "$tmp/f.json" "$tmp/elsewhere2/f" 1
sed -i "s|$scenes/light-fit.json|$tmp/sc/scene.json|" "$tmp/f.json"
"$dray" optimize "$tmp/f.json" -q > /dev/null 2>&1 || bad "inline bitmap run exited $?"
grep -q '"filename": "../../sc/tex.png"' "$tmp/elsewhere2/f/final-scene.json" && "$dray" render "$tmp/elsewhere2/f/final-scene.json" -o "$tmp/f.png" -q \
  && ok "a material's inline bitmap renamed for the output folder" || { bad "inline bitmap in the final scene"; grep filename "$tmp/elsewhere2/f/final-scene.json"; }
# 8. Held-out views: rendered once the run ends, never in the loss. Each one's render is bitwise
# `dray render` of the final scene from its camera at its spp, its target the truth rendered by
# `dray render` from there with the targets' seed (1000003); the printed PSNR is `dray diff`'s;
# the fit's PSNR beats the start's (1 iteration); 2 ranks give the same; a view's key not a
# held-out one is refused.
held='"held_out": [{ "camera": { "origin": [2.0, 1.6, 4.0] }, "target": { "scene": "'$scenes'/light-truth.json", "spp": 64 }, "spp": 64 }]'
job "$tmp/ho.json" "$tmp/ho" 20 ", $held"
job "$tmp/ho1.json" "$tmp/ho1" 1 ", $held"
"$dray" optimize "$tmp/ho.json" -q --threads 1 > "$tmp/ho.out" || bad "held-out run exited $?"
"$dray" optimize "$tmp/ho1.json" -q --threads 1 > "$tmp/ho1.out" || bad "held-out start exited $?"
cam='camera.origin=[2.0,1.6,4.0]'
"$dray" render "$tmp/ho/final-scene.json" --set "$cam" --spp 64 -o "$tmp/h-render.exr" -q
"$dray" render "$scenes/light-truth.json" --set "$cam" --spp 64 --seed 1000003 -o "$tmp/h-truth.exr" -q
rmse() { "$dray" diff "$1" "$2" | awk '$1 == "RMSE" {print $2}'; }
[ "$(rmse "$tmp/h-render.exr" "$tmp/ho/held-out-0.exr")" = 0 ] && [ "$(rmse "$tmp/h-truth.exr" "$tmp/ho/held-out-target-0.exr")" = 0 ] \
  && ok "held-out view: its render and target bitwise dray render's" || bad "held-out render or target differs from dray render's"
psnr=$(sed -n 's/.*held-out view 0: PSNR \([0-9.]*\) dB.*/\1/p' "$tmp/ho.out")
psnr1=$(sed -n 's/.*held-out view 0: PSNR \([0-9.]*\) dB.*/\1/p' "$tmp/ho1.out")
diff_psnr=$("$dray" diff "$tmp/ho/held-out-0.exr" "$tmp/ho/held-out-target-0.exr" | awk '$1 == "PSNR" {print $2}')
[ -n "$psnr" ] && [ "$psnr" = "$diff_psnr" ] && awk -v a="$psnr" -v b="$psnr1" 'BEGIN {exit !(a > b + 6)}' \
  && ok "held-out PSNR $psnr dB (dray diff: $diff_psnr) after 20 iterations, $psnr1 dB after 1" \
  || { bad "held-out PSNR: $psnr (dray diff $diff_psnr), start $psnr1"; cat "$tmp/ho.out"; }
job "$tmp/ho2.json" "$tmp/ho2" 20 ", $held"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/ho2.json" -q --threads 1 > "$tmp/ho2.out" 2>&1 || bad "held-out run on 2 ranks exited $?"
[ "$(rmse "$tmp/ho2/held-out-0.exr" "$tmp/ho/held-out-0.exr")" = 0 ] && grep -q "held-out view 0: PSNR $psnr dB" "$tmp/ho2.out" \
  && ok "held-out view on 2 ranks: bitwise the 1-rank run's" || { bad "held-out view on 2 ranks"; cat "$tmp/ho2.out"; }
mkdir "$tmp/hx" && cp "$tmp/ho/held-out-0.exr" "$tmp/hx/" && job "$tmp/hx.json" "$tmp/hx" 1
"$dray" optimize "$tmp/hx.json" -q > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "holds an earlier run (held-out-0.exr)" "$tmp/err" && "$dray" optimize "$tmp/hx.json" -q --force > /dev/null \
  && [ ! -e "$tmp/hx/held-out-0.exr" ] && ok "held-out images are a run's files: refused, then cleared by --force" || { bad "held-out files and --force"; cat "$tmp/err"; }
job "$tmp/hm.json" "$tmp/hm" 1 ", ${held/\"scene\": \"$scenes\/light-truth.json\", \"spp\": 64/\"image\": \"$tmp/missing.exr\"}"
"$dray" optimize "$tmp/hm.json" -q > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "missing.exr" "$tmp/err" && [ ! -e "$tmp/hm/progress.csv" ] \
  && ok "a held-out target that cannot be read stops the job before its first iteration" || { bad "missing held-out target"; cat "$tmp/err"; ls "$tmp/hm"; }
job "$tmp/hw.json" "$tmp/hw" 1 ", ${held/\"spp\": 64 \}\]/\"spp\": 64, \"weight\": 2 \}\]}"
"$dray" optimize "$tmp/hw.json" -q > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "hw.json: /held_out/0/weight: unknown key (expected one of: camera, sensor, target, spp)" "$tmp/err" && [ ! -e "$tmp/hw" ] \
  && ok "a held-out view's weight refused (exit 2, nothing written)" || { bad "held-out weight"; cat "$tmp/err"; }
exit $fail
