#!/usr/bin/env bash
# The catalogue of bad input: every case must end with exit 2 and one message naming the file
# and the JSON path or OBJ line, never a crash or a hang (a case still running after 60 s is killed
# and fails: exit 124), dray's message the last line printed; on 1 rank and under mpiexec -n 3
# alike. No time limit below that: on a loaded 2-core machine, four cases of 3 ranks each share
# the cores, and a 20 s limit failed a correct case once (stop 64).
# Usage: bad_input_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
# mpirun's own banner after a non-zero exit would follow dray's message: users set this (README,
# tools/setup.sh); with it, dray's message is the last line a user sees, which bad() checks.
export OMPI_MCA_orte_execute_quiet=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0 cases=0

# bad DESCRIPTION EXPECTED COMMAND...: EXPECTED must appear in exactly one line of stderr. Runs
# on each rank count in $RANKS (default: 1 and 3). Cases run four at a time in the background
# (each waits mostly on process start-up; every file a case reads is written before it starts and
# never changed after), each into its own files; finish() reports them in order.
bad() {
  cases=$((cases + 1))
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  one_case "$cases" "$@" >"case-$cases.txt" 2>&1 &
}
one_case() {
  local id=$1 what=$2 want=$3; shift 3
  for ranks in ${RANKS:-1 3}; do
    local start=$SECONDS code n_msgs n_dray err="err-$id-$ranks.txt"
    if [ "$ranks" = 1 ]; then timeout 60 "$@" >"out-$id-$ranks.txt" 2>"$err"
    else timeout 60 ${mpiexec/ N / 3 } "$@" >"out-$id-$ranks.txt" 2>"$err"; fi
    code=$?
    n_msgs=$(grep -cF -- "$want" "$err")
    n_dray=$(grep -c "^dray:" "$err")
    last=$(grep -v '^[[:space:]]*$' "$err" | tail -1)
    if [ "$code" = 2 ] && [ "$n_msgs" = 1 ] && [ "$n_dray" -le 1 ] \
       && { [ "$n_dray" = 0 ] || [ "${last#dray}" != "$last" ]; }; then
      echo "ok   [$ranks] $what"
    else
      echo "FAIL [$ranks] $what: exit $code, $n_msgs lines with \"$want\", $((SECONDS - start)) s; stderr:"
      cat "$err"
    fi
  done
}
# Waits for the cases, prints their reports in order; any FAIL fails the test.
finish() {
  wait
  for ((i = 1; i <= cases; i++)); do
    cat "case-$i.txt"
    grep -q "^FAIL" "case-$i.txt" && fail=1
  done
}

# A small valid scene, and variants of it.
cat >base.json <<'EOF'
{
  "camera": { "origin": [0, 1, 5], "target": [0, 1, 0], "width": 16, "height": 12 },
  "render": { "spp": 1 },
  "materials": { "white": { "type": "diffuse", "albedo": [0.7, 0.7, 0.7] } },
  "shapes": [ { "name": "ball", "type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white" },
              { "name": "mesh", "type": "mesh", "file": "tri.obj", "material": "white" } ],
  "lights": [ { "name": "key", "type": "point", "position": [0, 4, 4], "intensity": 10 } ]
}
EOF
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >tri.obj
"$dray" render base.json -q -o base.png || { echo "FAIL the base scene does not render"; exit 1; }
render() { echo "$dray" render "$@" -q -o "$tmp/out.png"; }
scene() {  # scene NAME JSON-TEXT
  printf '%s\n' "$2" >"$1"
}

# --- JSON syntax and files
: >empty.json
bad "empty scene file" "empty.json: parse error at line 1, column 1: syntax error" $(render empty.json)
head -c 150 base.json >truncated.json
bad "truncated scene file" "truncated.json: parse error at line 4" $(render truncated.json)
printf 'camera = 1\n' >notjson.json
bad "not JSON" "notjson.json: parse error at line 1, column 1: syntax error while parsing value - invalid literal" $(render notjson.json)
head -c 2000 /dev/urandom >binary.json
bad "binary garbage" "binary.json: parse error at line 1" $(render binary.json)
scene array.json '[1, 2]'
bad "a list, not an object" "array.json: /: must be an object, got array" $(render array.json)
bad "missing scene" "gone.json: cannot open: no such file" $(render gone.json)
mkdir -p adir.json
bad "a directory as the scene" "adir.json: is a directory, not a JSON file" $(render adir.json)
mkfifo fifo.json
bad "a FIFO as the scene (would block)" "fifo.json: is not a regular file" $(render fifo.json)
ln -s nowhere.json dangling.json
bad "a dangling symlink" "dangling.json: cannot open: no such file" $(render dangling.json)

# --- structure, types and names
set_bad() {  # set_bad DESCRIPTION EXPECTED KEY=VALUE...
  local what=$1 want=$2; shift 2
  local sets=()
  for kv in "$@"; do sets+=(--set "$kv"); done
  bad "$what" "$want" $(render base.json) "${sets[@]}"
}
set_bad "width is a string" "base.json: /camera/width: must be an integer, got string" camera.width=wide
set_bad "radius is a string" "base.json: /shapes/0 (ball)/radius: must be a number, got string" shapes.ball.radius=big
set_bad "center has 2 numbers" "base.json: /shapes/0 (ball)/center: must be an array of 3 numbers" "shapes.ball.center=[0,1]"
set_bad "albedo is an object" "base.json: /materials/white/albedo: must be a number, an array of 3 numbers, or a texture" 'materials.white.albedo={"r":1}'
set_bad "misspelled key" "base.json: /shapes/0 (ball)/radus: unknown key (expected one of" shapes.ball.radus=1
set_bad "unknown top-level key" "base.json: /lightz: unknown key" lightz=1
set_bad "unknown shape type" "base.json: /shapes/0 (ball)/type: unknown shape type \"torus\"" shapes.ball.type=torus
set_bad "unknown material type" "base.json: /materials/white/type: unknown material type \"glass\"" materials.white.type=glass
set_bad "unknown light type" "base.json: /lights/0 (key)/type: unknown light type \"laser\"" lights.key.type=laser
set_bad "undefined material" "base.json: /shapes/0 (ball)/material: no material named \"marble\"" shapes.ball.material=marble
set_bad "shape without type" "base.json: /shapes/1/type: required key is missing" 'shapes[1]={"radius":1}'
set_bad "camera removed" "base.json: /camera: required key is missing" camera=null
set_bad "duplicate shape name" "base.json: /shapes/1/name: duplicate shape name \"ball\"" shapes.mesh.name=ball
set_bad "--set of a missing element" "--set shapes.nosuch.radius: no element \"nosuch\"" shapes.nosuch.radius=1

# --- values
set_bad "NaN radius" "base.json: /shapes/0 (ball)/radius: must be a number, got string" shapes.ball.radius=NaN
set_bad "radius beyond float range" "base.json: /shapes/0 (ball)/radius: must be a finite number within float range" shapes.ball.radius=1e39
set_bad "negative radius" "base.json: /shapes/0 (ball)/radius: must be > 0, got -1" shapes.ball.radius=-1
set_bad "zero radius" "base.json: /shapes/0 (ball)/radius: must be > 0, got 0" shapes.ball.radius=0
set_bad "negative spp" "base.json: /render/spp: must be in [1, 1048576], got -4" render.spp=-4
set_bad "zero width" "base.json: /camera/width: must be in [1, 1048576], got 0" camera.width=0
set_bad "fractional height" "base.json: /camera/height: must be an integer, got number" camera.height=12.5
set_bad "negative albedo" "base.json: /materials/white/albedo: must be >= 0, got -0.5" "materials.white.albedo=[-0.5,0,0]"
set_bad "albedo above 1" "base.json: /materials/white/albedo: must be <= 1, got 2" materials.white.albedo=2
set_bad "negative intensity" "base.json: /lights/0 (key)/intensity: must be >= 0, got -3" lights.key.intensity=-3
set_bad "infinite intensity" "base.json: /lights/0 (key)/intensity: must be a finite number within float range" lights.key.intensity=1e300
set_bad "zero mesh scale" "base.json: /shapes/1 (mesh)/transform/scale: must be > 0, got 0" shapes.mesh.transform.scale=0
set_bad "a quad with no area" "base.json: /shapes/1/edge_v: must not be parallel to edge_u" \
  'shapes[1]={"type":"quad","corner":[0,0,0],"edge_u":[1,0,0],"edge_v":[2,0,0],"material":"white"}'
set_bad "camera looking at itself" "base.json: /camera/target: must differ from /camera/origin" "camera.target=[0,1,5]"
set_bad "fov of 180 degrees" "base.json: /camera/fov_y: must be < 180 degrees" camera.fov_y=180
set_bad "camera up along the view" "base.json: /camera/up: must not be parallel to the viewing direction" "camera.up=[0,0,1]"
set_bad "camera up too short for float (found by fuzzing)" "base.json: /camera/up: is too short: the frame underflows float" \
  "camera.up=[1e-30,0,0]"
set_bad "a light with no direction" "base.json: /lights/0/direction: must not be zero" \
  'lights[0]={"type":"directional","direction":[0,0,0],"irradiance":1}'
set_bad "an image too large for memory (checked before allocating)" "base.json: /camera: a 1000000x1000000 image" \
  camera.width=1000000 camera.height=1000000
bad "an image too large with derivatives" "base.json: /camera: a 12000x12000 image with 21 channels" \
  $(render base.json) --set camera.width=12000 --set camera.height=12000 --wrt shapes.ball.center --wrt materials.white.albedo

# --- Mitsuba XML: file:line:column, the element, the property in Mitsuba's words
cat >base.xml <<'EOF'
<scene version="3.0.0">
  <default name="r" value="1"/>
  <sensor type="perspective"><film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="6"/></film></sensor>
  <shape type="sphere"><float name="radius" value="$r"/><transform name="to_world"><translate z="4"/></transform></shape>
  <emitter type="constant"/>
</scene>
EOF
"$dray" render base.xml -q -o base-xml.png || { echo "FAIL the base XML scene does not render"; fail=1; }
xml() {  # xml NAME LINE: base.xml with LINE added before </scene>
  sed "s|^</scene>|$2\n</scene>|" base.xml >"$1"
}
xml alpha.xml '  <shape type="sphere"><bsdf type="roughconductor"><float name="alpha" value="-0.1"/></bsdf></shape>'
bad "XML: a negative roughness" 'alpha.xml:6:24: <bsdf type="roughconductor"> alpha: must be > 0, got -0.1' $(render alpha.xml)
xml attr.xml '  <shape type="sphere"><float name="radius" vaule="2"/></shape>'
bad "XML: an unknown attribute" 'attr.xml:6:24: <float name="radius">: unexpected attribute "vaule" (<float> takes name, value)' $(render attr.xml)
xml two.xml '  <integrator type="path"/><integrator type="direct"/>'
bad "XML: a second integrator" 'two.xml:6:28: <integrator type="direct">: a second <integrator> (the first: ' $(render two.xml)
bad "XML: a -D the scene never uses" 'base.xml: -D radius: the scene never uses $radius (its parameters: $r)' $(render base.xml) -D radius=2
bad "XML: a -D of a JSON scene" 'base.json: -D defines values of Mitsuba XML scenes; this scene is JSON (use --set)' $(render base.json) -D r=2

# --- OBJ files
obj_case() {  # obj_case DESCRIPTION EXPECTED OBJ-TEXT (printf format)
  local name="m$cases.obj"
  printf "$3" >"$name"
  bad "$1" "$name: $2" $(render base.json) --set "shapes.mesh.file=$name"
}
obj_case "OBJ vertex index out of range" "line 4: vertex index 9 is out of range (3 vertices defined before it)" 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n'
obj_case "OBJ negative index out of range" "line 4: vertex index -5 is out of range" 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -5\n'
obj_case "OBJ zero index" "line 4: vertex index 0 is invalid (OBJ indices start at 1)" 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n'
obj_case "OBJ NaN vertex" "line 2: vertex coordinate \"nan\" is not a finite number" 'v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n'
obj_case "OBJ infinite vertex" "line 1: vertex coordinate \"1e999\" is not a finite number" 'v 1e999 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'
obj_case "OBJ vertex with 2 coordinates" "line 3: a vertex needs 3 coordinates, got 2" 'v 0 0 0\nv 1 0 0\nv 0 1\nf 1 2 3\n'
obj_case "OBJ without faces" "has no faces" 'v 0 0 0\nv 1 0 0\nv 0 1 0\n'
obj_case "OBJ with points only" "has no faces, only 3 point and 0 line vertices" 'v 0 0 0\nv 1 0 0\nv 0 1 0\np 1 2 3\n'
obj_case "OBJ with lines only" "has no faces, only 0 point and 2 line vertices" 'v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\n'
obj_case "empty OBJ" "is empty" ''
bad "missing OBJ" "base.json: /shapes/1 (mesh)/file: cannot open \"gone.obj\": no such file" \
  $(render base.json) --set shapes.mesh.file=gone.obj
bad "a directory as the OBJ" "base.json: /shapes/1 (mesh)/file: \"adir.json\" is a directory" \
  $(render base.json) --set shapes.mesh.file=adir.json
bad "OBJ named material missing from the file" "base.json: /shapes/1 (mesh)/materials/paint: \"tri.obj\" has no material named \"paint\"" \
  $(render base.json) --set shapes.mesh.material=null --set 'shapes.mesh.materials={"paint":"white"}'

# --- unreadable files: as root every file is readable, so drop to nobody for these (1 rank:
# nobody under mpiexec would need a home and session folder of its own).
mkdir pub && chmod 711 "$tmp" && chmod 755 pub && cp "$dray" pub/dray && cp base.json tri.obj pub/ && chmod 644 pub/*
chmod 755 pub/dray
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod 000 pub/tri.obj
RANKS=1 bad "unreadable OBJ" "pub/base.json: /shapes/1 (mesh)/file: cannot open \"pub/tri.obj\" for reading" \
  "${as_user[@]}" pub/dray render pub/base.json -q -o "$tmp/pub/out.png"
wait  # the case reads the files as they are now
chmod 644 pub/tri.obj && chmod 000 pub/base.json
RANKS=1 bad "unreadable scene" "pub/base.json: cannot open for reading" \
  "${as_user[@]}" pub/dray render pub/base.json -q -o "$tmp/pub/out.png"
wait
chmod 644 pub/base.json

# --- outputs
bad "unwritable output folder" "/proc/nope/out.png: cannot create folder" "$dray" render base.json -q -o /proc/nope/out.png
bad "output in an unknown format" "out.jpg: output must end in .png or .exr" "$dray" render base.json -q -o out.jpg
bad "--wrt an unknown parameter" "unknown parameter \"shapes.nosuch.radius\"" $(render base.json) --wrt shapes.nosuch.radius
bad "gradcheck of an unknown parameter" "unknown parameter \"materials.nosuch.albedo\"" \
  "$dray" gradcheck base.json --param materials.nosuch.albedo

# --- dray diff
"$dray" render base.json -q -o a.exr
"$dray" render base.json -q -o small.exr --set camera.width=8
printf 'not a png' >fake.png
bad "diff with a missing file" "missing.exr: cannot open: no such file" "$dray" diff a.exr missing.exr
bad "diff of mismatched sizes" "small.exr is 8x12 but a.exr is 16x12" "$dray" diff small.exr a.exr
bad "diff of a file that is not an image" "fake.png: cannot read image" "$dray" diff fake.png a.exr
bad "diff of a text file named .exr" "notjson.exr: cannot read EXR" bash -c "cp notjson.json notjson.exr && exec '$dray' diff notjson.exr a.exr"
bad "diff of a directory" "adir.json: is not a regular file" "$dray" diff adir.json a.exr

# --- dray optimize
job() {  # job NAME JSON-TEXT: a job file beside base.json
  printf '%s\n' "$2" >"$1"
}
good_job='"scene": "base.json", "target": { "scene": "base.json", "spp": 2 }, "params": { "lights.key.intensity": { "lr": 0.1 } }, "optimizer": { "iterations": 2 }, "spp": 1'
job ok.job.json "{ $good_job, \"output\": \"opt\" }"
"$dray" optimize ok.job.json --quiet || { echo "FAIL the base job does not run"; fail=1; }
bad "optimize: missing job" "gone.job.json: cannot open: no such file" "$dray" optimize gone.job.json
job trunc.job.json '{ "scene": "base.json", '
bad "optimize: truncated job" "trunc.job.json: parse error at line 2, column 1" "$dray" optimize trunc.job.json
job noscene.job.json "{ ${good_job/base.json/nosuch.json}, \"output\": \"opt\" }"
bad "optimize: missing scene" "nosuch.json: cannot open: no such file" "$dray" optimize noscene.job.json
job param.job.json "{ ${good_job/lights.key.intensity/lights.key.colour}, \"output\": \"opt\" }"
bad "optimize: unknown parameter name" "param.job.json: /params/lights.key.colour: unknown parameter" "$dray" optimize param.job.json
job type.job.json "{ ${good_job/\"iterations\": 2/\"iterations\": \"two\"}, \"output\": \"opt\" }"
bad "optimize: iterations is a string" "type.job.json: /optimizer/iterations: must be an integer, got string" "$dray" optimize type.job.json
job key.job.json "{ $good_job, \"output\": \"opt\", \"learning_rate\": 1 }"
bad "optimize: unknown key" "key.job.json: /learning_rate: unknown key" "$dray" optimize key.job.json
job image.job.json '{ "scene": "base.json", "target": { "image": "small.exr" }, "params": { "lights.key.intensity": { "lr": 0.1 } }, "output": "opt-image" }'
bad "optimize: target image of another size" "small.exr: the target is 8x12 but the scene renders 16x12" "$dray" optimize image.job.json
job noimage.job.json '{ "scene": "base.json", "target": { "image": "none.exr" }, "params": { "lights.key.intensity": { "lr": 0.1 } }, "output": "opt-noimage" }'
bad "optimize: missing target image" "none.exr: cannot open: no such file" "$dray" optimize noimage.job.json
job out.job.json "{ $good_job, \"output\": \"/proc/nope\" }"
bad "optimize: unwritable output folder (before rendering)" "/proc/nope" "$dray" optimize out.job.json
job fresh.job.json "{ $good_job, \"output\": \"fresh\" }"
bad "optimize --resume without a checkpoint" "checkpoint.json: no checkpoint to resume from" "$dray" optimize fresh.job.json --resume

job range.job.json '{ "scene": "base.json", "target": { "scene": "base.json", "spp": 2 }, "params": { "lights.key.intensity": { "lr": 0.1, "min": 20 } }, "output": "opt-range" }'
bad "optimize: a start outside [min, max]" "range.job.json: /params/lights.key.intensity: lights.key.intensity[0] starts at 10, outside the job's [min, max] = [20, inf]" \
  "$dray" optimize range.job.json
bad "optimize: an earlier run's folder" "ok.job.json: /output: opt: holds an earlier run" "$dray" optimize ok.job.json

mkdir -p broken && printf '{ "iteration": 1 }\n' >broken/checkpoint.json
job broken.job.json "{ $good_job, \"output\": \"broken\" }"
bad "optimize --resume from a corrupt checkpoint" "checkpoint.json: not a valid checkpoint" "$dray" optimize broken.job.json --resume
# A checkpoint whose array is longer than its manifest says, and one of the JSON format before.
job torn.job.json "{ $good_job, \"output\": \"torn\", \"checkpoint_every\": 1 }"
"$dray" optimize torn.job.json -q >/dev/null 2>&1 && printf 'x' >>torn/checkpoint-000002/0.m
bad "optimize --resume from a checkpoint with a torn array" "0.m: a checkpoint array is torn or changed" "$dray" optimize torn.job.json --resume
mkdir -p older && printf '{ "iteration": 1, "params": ["a"], "value": [1], "m": [0], "v": [0] }\n' >older/checkpoint.json
job older.job.json "{ $good_job, \"output\": \"older\" }"
bad "optimize --resume from a checkpoint of an earlier dray" "checkpoint.json: a checkpoint of an earlier dray (values in JSON)" \
  "$dray" optimize older.job.json --resume
# A job whose blocks do not fit its ranks' memory (the smoke grid's 32^3 scalars, 1.5 MB a node
# as DRAY_MEMORY_GB says, which its image fits): refused before the first pass, naming the bytes.
job grid.job.json "{ \"scene\": \"$scenes/smoke-fit.json\", \"target\": { \"scene\": \"$scenes/smoke-fit.json\", \"spp\": 1 },
  \"params\": { \"media.smoke.sigma_t\": { \"lr\": 0.05 } }, \"optimizer\": { \"iterations\": 1 }, \"spp\": 1, \"output\": \"grid\" }"
bad "optimize a job whose blocks do not fit each rank's memory" "grid.job.json: /params: the job's 32768 scalars need" \
  env DRAY_MEMORY_GB=0.0014 "$dray" optimize grid.job.json
printf '{ "camera": { "origin": [0, 1e99999, 0] } }\n' >overflow.json
bad "a number too large for a double (found by fuzzing)" "overflow.json: number overflow parsing" $(render overflow.json)

finish
echo "$cases bad inputs"
exit $fail
