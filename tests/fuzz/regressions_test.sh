#!/usr/bin/env bash
# Replays what fuzzing found (tests/fuzz/regressions/{scene,obj,ply,xml}) and the OBJ and PLY seeds through
# `dray render`, as the fuzz targets load them: every input must end with exit 0 (it rendered)
# or 2 (bad input, with a message), never a crash, a sanitizer report or a hang.
# Usage: regressions_test.sh DRAY FUZZ_DIR
set -uo pipefail
dray=$(realpath "$1") dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$dir/../../scenes/models" "$tmp/models"
fail=0 n=0
small=(-q -o "$tmp/out.png" --set camera.width=4 --set camera.height=4 --set render.spp=1)
run() {  # run WHAT ALLOWED-CODES COMMAND...
  local what=$1 allowed=$2; shift 2
  n=$((n + 1))
  timeout 60 "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local code=$?
  if [[ " $allowed " == *" $code "* ]] && ! grep -q "Sanitizer\|runtime error" "$tmp/stderr"; then
    echo "ok   $what (exit $code)"
  else
    echo "FAIL $what: exit $code"; head -30 "$tmp/stderr"; fail=1
  fi
}
for f in "$dir"/regressions/scene/*; do
  [ -f "$f" ] || continue
  cp "$f" "$tmp/scene.json"
  run "scene $(basename "$f")" "0 2" "$dray" render "$tmp/scene.json" "${small[@]}"
done
cat >"$tmp/obj-scene.json" <<'JSON'
{ "camera": { "origin": [0, 0.5, 3], "target": [0, 0.5, 0], "width": 4, "height": 4 },
  "materials": { "grey": { "type": "diffuse", "albedo": 0.5, "emission": 0.2 } },
  "shapes": [ { "type": "mesh", "file": "mesh.obj", "material": "grey" } ],
  "lights": [ { "type": "point", "position": [0, 2, 2], "intensity": 5 } ] }
JSON
sed 's/mesh\.obj/mesh.ply/' "$tmp/obj-scene.json" > "$tmp/ply-scene.json"
# replay LABEL CODES AS SCENE FILES...: each file copied to $tmp/AS and SCENE rendered.
replay() {
  local label=$1 codes=$2 as=$3 scene=$4; shift 4
  for f in "$@"; do
    [ -f "$f" ] || continue
    cp "$f" "$tmp/$as"
    run "$label $(basename "$f")" "$codes" "$dray" render "$tmp/$scene" "${small[@]}"
  done
}
replay "OBJ seed" "0" mesh.obj obj-scene.json "$dir"/obj_seeds/*.obj
replay "OBJ" "0 2" mesh.obj obj-scene.json "$dir"/regressions/obj/*
replay "PLY seed" "0" mesh.ply ply-scene.json "$dir"/ply_seeds/*.ply
replay "PLY" "0 2" mesh.ply ply-scene.json "$dir"/regressions/ply/*
replay "XML" "0 2" scene.xml scene.xml "$dir"/regressions/xml/*
echo "$n inputs replayed"
exit $fail
