# Shared by optimize_test.sh and optimize_fit_test.sh (sourced): temp folder, ok/bad, job builders.
# Expects dray, scenes and mpiexec set.
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

lens_scenes() {  # $tmp/lens-truth.json: scenes/lens.json at 24² (ptracer); $tmp/lens-start.json: its exit face turned 2° about z
  python3 - "$scenes" "$tmp" <<'PY'
import json, sys
scenes, tmp = sys.argv[1:]
s = json.load(open(scenes + "/lens.json"))
s["camera"].update(width=24, height=24)
s["shapes"][2]["file"] = scenes + "/models/lens-grid.obj"
json.dump(s, open(tmp + "/lens-truth.json", "w"))
s["shapes"][2]["transform"] = {"rotate_z": 2.0}
json.dump(s, open(tmp + "/lens-start.json", "w"))
PY
}
