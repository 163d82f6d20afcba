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

# 1. A small optimization recovers the light (truth 0.6, 2.2, 0.4) within 2%, on 2 ranks.
job "$tmp/a.json" "$tmp/a" 100
${mpiexec/ N / 2 } "$dray" optimize "$tmp/a.json" --threads 1 > "$tmp/a.out" 2>&1 || bad "optimize exited $?"
for spec in "0 0.6" "1 2.2" "2 0.4"; do
  set -- $spec
  got=$(awk -v n="lights.bulb.position[$1]" '$1 == n {print $2}' "$tmp/a.out")
  if awk -v g="$got" -v t="$2" 'BEGIN {e = (g - t) / t; exit !(e < 0.02 && e > -0.02)}'; then
    ok "position[$1] = $got, truth $2"; else bad "position[$1] = $got, truth $2"; cat "$tmp/a.out"; fi
done
[ $(wc -l < "$tmp/a/progress.csv") = 101 ] && ok "progress.csv has a header and 100 rows" || bad "progress.csv rows"
head -1 "$tmp/a/progress.csv" | grep -q "iteration,loss,gradient_norm,dropped_samples,lights.bulb.position\[0\]" \
  && ok "progress.csv names the parameters" || bad "progress.csv header"
[ -s "$tmp/a/snapshot-0000.png" ] && [ -s "$tmp/a/snapshot-0099.png" ] && [ -s "$tmp/a/target.exr" ] \
  && ok "snapshots and the target are written" || bad "snapshots"
grep -q '"position"' "$tmp/a/final-scene.json" && "$dray" render "$tmp/a/final-scene.json" -o "$tmp/final.png" -q \
  && ok "the final scene is valid and renders" || bad "final-scene.json"

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
${mpiexec/ N / 2 } "$dray" optimize "$tmp/kill.json" --threads 1 -q --resume || bad "resume exited $?"
if cmp -s "$tmp/full/checkpoint.json" "$tmp/kill/checkpoint.json" && \
   cmp -s <(sed 's|/kill/|/X/|' "$tmp/kill/final-scene.json") <(sed 's|/full/|/X/|' "$tmp/full/final-scene.json"); then
  ok "resumed run ends bitwise where the uninterrupted run ends"; else bad "resumed run differs"; diff "$tmp/full/checkpoint.json" "$tmp/kill/checkpoint.json" | head; fi
rows=$(cut -d, -f1 "$tmp/kill/progress.csv" | tail -n +2 | tr '\n' ' ')
[ "$rows" = "$(seq -s ' ' 0 39) " ] && ok "progress.csv of the resumed run has rows 0-39, none twice" || bad "resumed progress.csv: $rows"

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
job "$tmp/fresh.json" "$tmp/fresh" 5
"$dray" optimize "$tmp/fresh.json" --resume > "$tmp/out" 2> "$tmp/err"
[ $? = 2 ] && grep -q "no checkpoint to resume from" "$tmp/err" && ok "--resume without a checkpoint" || bad "--resume without a checkpoint"
exit $fail
