#!/usr/bin/env bash
# The dray command line: outputs, flags and exit codes (0 success, 2 bad input or usage).
# Usage: cli_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2")
source "$(dirname "$0")/cli_lib.sh"
small="--set camera.width=32 --set camera.height=24 --spp 2"

expect 0 "render to PNG in a new folder" "$dray" render "$scenes/spheres.json" -o "$tmp/a/b/out.png" $small
[ -s "$tmp/a/b/out.png" ] || { echo "FAIL no PNG written"; fail=1; }
has "$tmp/stdout" "1 ranks x" "summary line names ranks x threads"
has "$tmp/stdout" "Msamples/s" "summary line gives the sample rate"
[ ! -s "$tmp/stderr" ] || { echo "FAIL stderr is not a terminal, yet something was drawn"; fail=1; }
has "$tmp/stdout" ", 0 non-finite samples dropped" "summary line counts non-finite samples"
expect 0 "a sky at the top of float's range" "$dray" render "$scenes/spheres.json" -o "$tmp/inf.exr" $small \
  --set lights.sky.radiance=3.4e38
if grep -qE ", [1-9][0-9]* non-finite samples dropped" "$tmp/stdout"; then echo "ok   overflowing samples are counted"
else echo "FAIL no non-finite samples counted:"; cat "$tmp/stdout"; fail=1; fi
expect 0 "the image of overflowing samples is finite (dray diff reads it)" "$dray" diff "$tmp/inf.exr" "$tmp/inf.exr"
expect 0 "--progress forces the bar" "$dray" render "$scenes/spheres.json" -o "$tmp/p.png" $small --progress
has "$tmp/stderr" "100%" "--progress draws the bar to 100%"
expect 0 "--stats prints per-rank busy time" "$dray" render "$scenes/spheres.json" -o "$tmp/s.png" $small --stats
has "$tmp/stdout" "imbalance (max/mean) 1.000" "one rank is perfectly balanced"
expect 0 "render to EXR, quiet" "$dray" render "$scenes/spheres.json" -o "$tmp/out.exr" $small --quiet
[ -s "$tmp/out.exr" ] && [ ! -s "$tmp/stdout" ] || { echo "FAIL --quiet printed or wrote nothing"; fail=1; }
(cd "$tmp" && expect 0 "default output is SCENE-stem.png" "$dray" render "$scenes/spheres.json" $small -q)
[ -s "$tmp/spheres.png" ] || { echo "FAIL no spheres.png in the working folder"; fail=1; }
expect 0 "--help" "$dray" render --help
has "$tmp/stdout" "--threads" "help documents --threads"
expect 0 "params lists parameters" "$dray" params "$scenes/spheres.json"
has "$tmp/stdout" "shapes.left.radius" "params names shapes.left.radius"

expect 2 "missing scene" "$dray" render "$tmp/nope.json"
has "$tmp/stderr" "nope.json: cannot open: no such file" "missing scene names the file"
expect 2 "bad --set value" "$dray" render "$scenes/spheres.json" --set shapes.left.radius=-1
has "$tmp/stderr" "spheres.json: /shapes/1 (left)/radius: must be > 0, got -1" "bad value names the JSON path and the shape"
expect 2 "unknown flag" "$dray" render "$scenes/spheres.json" --bogus
expect 2 "no subcommand" "$dray"
expect 2 "bad output format" "$dray" render "$scenes/spheres.json" -o "$tmp/out.jpg"
has "$tmp/stderr" "out.jpg: output must end in .png or .exr" "bad format is named"
expect 2 "unwritable output" "$dray" render "$scenes/spheres.json" -o /proc/nope/out.png $small
expect 2 "zero threads" "$dray" render "$scenes/spheres.json" --threads 0
expect 2 "unknown distribution" "$dray" render "$scenes/spheres.json" --distribution random
# --variance and dray diff
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print ($1*16777216+$2*65536+$3*256+$4) "x" ($5*16777216+$6*65536+$7*256+$8)}'; }
expect 0 "render with --variance" "$dray" render "$scenes/spheres.json" $small -q -o "$tmp/m.exr" --variance "$tmp/v.exr"
[ -s "$tmp/v.exr" ] || { echo "FAIL no variance EXR"; fail=1; }
expect 2 "--variance must be EXR" "$dray" render "$scenes/spheres.json" $small -q --variance "$tmp/v.png"
expect 2 "--variance needs spp >= 2" "$dray" render "$scenes/spheres.json" -q --spp 1 --variance "$tmp/v1.exr"
has "$tmp/stderr" "--variance needs at least 2 samples per pixel" "spp 1 is explained"
expect 0 "diff of an image with itself" "$dray" diff "$tmp/m.exr" "$tmp/m.exr"
has "$tmp/stdout" "RMSE          0" "identical images have RMSE 0"
has "$tmp/stdout" "PASS" "identical images pass"
"$dray" render "$scenes/spheres.json" $small -q --seed 3 -o "$tmp/m3.exr"
expect 1 "diff of two seeds at tolerance 0.001" "$dray" diff "$tmp/m3.exr" "$tmp/m.exr" --tol 0.001 --heatmap "$tmp/heat.png"
has "$tmp/stdout" "FAIL" "different images fail"
[ "$(png_size "$tmp/heat.png")" = "32x24" ] || { echo "FAIL heatmap is $(png_size "$tmp/heat.png"), not 32x24"; fail=1; }
expect 0 "diff of two seeds, everything allowed" "$dray" diff "$tmp/m3.exr" "$tmp/m.exr" --tol 0.001 --max-share 1
expect 0 "diff PNG against EXR" "$dray" diff "$tmp/out.exr" "$tmp/out.exr" --tol 0
dim="--set lights.key.intensity=5 --set materials.lamp.emission=0.5"  # every value below 1: no clamping in PNG
"$dray" render "$scenes/spheres.json" $small $dim -q -o "$tmp/p8.png"
"$dray" render "$scenes/spheres.json" $small $dim -q -o "$tmp/p8.exr"
expect 0 "diff PNG against the EXR of the same render, within 8-bit rounding" "$dray" diff "$tmp/p8.png" "$tmp/p8.exr" --tol 0.01
"$dray" render "$scenes/spheres.json" -q --set camera.width=32 --set camera.height=24 --spp 256 --seed 9 \
  -o "$tmp/ref.exr" --variance "$tmp/ref.var.exr"
"$dray" render "$scenes/spheres.json" -q --set camera.width=32 --set camera.height=24 --spp 32 -o "$tmp/t32.exr"
expect 0 "Z-test: another seed against a 256-spp reference" "$dray" diff "$tmp/t32.exr" "$tmp/ref.exr" --ref-variance "$tmp/ref.var.exr"
has "$tmp/stdout" "32 vs 256 spp" "sample counts come from the EXR headers"
expect 2 "Z-test on a PNG needs --test-spp" "$dray" diff "$tmp/p8.png" "$tmp/m.exr" --ref-variance "$tmp/v.exr"
has "$tmp/stderr" "p8.png: sample count unknown" "the PNG is named"
expect 2 "diff with a missing file" "$dray" diff "$tmp/m.exr" "$tmp/missing.exr"
has "$tmp/stderr" "missing.exr" "the missing file is named"
"$dray" render "$scenes/spheres.json" -q --set camera.width=16 --set camera.height=16 --spp 2 -o "$tmp/small.exr"
expect 2 "diff of different sizes" "$dray" diff "$tmp/small.exr" "$tmp/m.exr"
has "$tmp/stderr" "small.exr is 16x16 but $tmp/m.exr is 32x24" "both sizes are named"
expect 2 "a --mask of another size" "$dray" diff "$tmp/m.exr" "$tmp/m.exr" --mask "$tmp/small.exr"
expect 2 "--mask with --ref-variance" "$dray" diff "$tmp/m.exr" "$tmp/m.exr" --mask "$tmp/m.exr" --ref-variance "$tmp/v.exr"
# Derivative images and gradcheck
expect 0 "render --wrt (one value each)" "$dray" render "$scenes/spheres.json" $small -o "$tmp/w/img.png" --wrt materials.red.albedo --wrt lights.key.intensity[1]
for p in materials.red.albedo.0 materials.red.albedo.1 materials.red.albedo.2 lights.key.intensity.1; do
  [ -s "$tmp/w/img.d.$p.exr" ] && [ -s "$tmp/w/img.d.$p.png" ] || { echo "FAIL no img.d.$p.exr/.png (shell-safe names)"; fail=1; }
done
has "$tmp/stdout" "img.d.lights.key.intensity.1.png (colour scale" "the colour scale is printed"
has "$tmp/stdout" "4 derivatives" "the summary counts the derivatives"
expect 2 "--wrt an unknown parameter" "$dray" render "$scenes/spheres.json" $small --wrt materials.nosuch.albedo
has "$tmp/stderr" "unknown parameter \"materials.nosuch.albedo\"" "the unknown parameter is named"
expect 2 "--wrt a component out of range" "$dray" render "$scenes/spheres.json" $small --wrt "shapes.left.radius[1]"
has "$tmp/stderr" "shapes.left.radius has 1 component" "the component count is given"
grad="--set camera.width=32 --set camera.height=24 --spp 4"
expect 0 "gradcheck on parameters that move no edge" "$dray" gradcheck "$scenes/spheres.json" $grad \
  --param materials.red.albedo lights.key.intensity[0] materials.steel.tint[2] lights.sky.radiance[1] --seed 2
has "$tmp/stdout" "PASS" "gradcheck passes"
has "$tmp/stdout" "materials.red.albedo[2]" "gradcheck lists each component"
expect 1 "gradcheck on a lamp's radius (sky shadows and floor contact move: not covered)" "$dray" gradcheck "$scenes/spheres.json" $grad \
  --param shapes.glow.radius
has "$tmp/stdout" "DIFFERS" "the difference is shown"
# Gradchecks across edges (silhouettes, shadows; many samples): tests/tools/gradcheck_edges_test.sh.
expect 2 "gradcheck without --param" "$dray" gradcheck "$scenes/spheres.json"

# --- issue 11: what a new user meets
msg() {  # msg DESCRIPTION EXPECTED-STDERR COMMAND...: exit 2 and exactly this stderr
  local what=$1 want=$2; shift 2
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local got=$?
  if [ "$got" = 2 ] && [ "$(cat "$tmp/stderr")" = "$want" ]; then echo "ok   $what"; else
    echo "FAIL $what: exit $got, stderr:"; cat "$tmp/stderr"; echo "expected: $want"; fail=1; fi
}
S="$scenes/spheres.json"
msg "--spp 0" 'dray render: --spp must be a whole number in [1, 1048576], got "0"' "$dray" render "$S" --spp 0
msg "--spp -3" 'dray render: --spp must be a whole number in [1, 1048576], got "-3"' "$dray" render "$S" --spp -3
msg "--spp=abc" 'dray render: --spp must be a whole number in [1, 1048576], got "abc"' "$dray" render "$S" --spp=abc
msg "--spp 4294967297" 'dray render: --spp must be a whole number in [1, 1048576], got "4294967297"' "$dray" render "$S" --spp 4294967297
msg "--threads 0" 'dray render: --threads must be a whole number in [1, 4096], got "0"' "$dray" render "$S" --threads 0
msg "gradcheck --tol 0" 'dray gradcheck: --tol must be a number > 0, got "0"' "$dray" gradcheck "$S" --param shapes.left.radius --tol 0
msg "diff --alpha 2" 'dray diff: --alpha must be a number in [1e-12, 0.5], got "2"' "$dray" diff "$tmp/m.exr" "$tmp/m.exr" --alpha 2
msg "an unknown command" 'dray: unknown command "redner" (commands: render, params, gradcheck, optimize, diff, regress, convert, mitsuba-suite; dray --help)' "$dray" redner
# A Mitsuba XML scene: rendered directly, converted to JSON (written in another folder, its paths
# rewritten), and the two images bitwise the same; -D sets its $spp.
X="$scenes/mitsuba/spheres.xml"
expect 0 "render a Mitsuba XML scene" "$dray" render "$X" -D spp=2 -D res=32 -o "$tmp/x.exr" -q
expect 0 "convert it to JSON" "$dray" convert "$X" -D spp=2 -D res=32 -o "$tmp/conv/x.json"
has "$tmp/stdout" "wrote $tmp/conv/x.json" "convert says what it wrote"
expect 0 "render the converted JSON" "$dray" render "$tmp/conv/x.json" -o "$tmp/y.exr" -q
if cmp -s "$tmp/x.exr" "$tmp/y.exr"; then echo "ok   XML and converted JSON render bitwise the same"
else echo "FAIL XML and converted JSON images differ"; fail=1; fi
# The material wall (scenes/mitsuba/material-wall): spectra, masks over a two-BSDF twosided, eta/k
# and named conductors, principled, blendbsdf, an include and a <path>; rendered and converted
# bitwise alike.
for m in sky area-light; do
  B="$scenes/mitsuba/material-wall/$m.xml"
  expect 0 "render the wall's $m" "$dray" render "$B" -D spp=1 --set camera.width=32 --set camera.height=32 -o "$tmp/$m.exr" -q
  expect 0 "convert the wall's $m" "$dray" convert "$B" -D spp=1 --set camera.width=32 --set camera.height=32 -o "$tmp/conv/$m.json"
  expect 0 "render the converted $m" "$dray" render "$tmp/conv/$m.json" -o "$tmp/$m-conv.exr" -q
  expect 0 "$m: XML and converted JSON render bitwise the same" cmp "$tmp/$m.exr" "$tmp/$m-conv.exr"
done
expect 0 "params of an XML scene" "$dray" params "$X"
has "$tmp/stdout" "materials.gold.alpha" "XML objects named by their id"
msg "-D without a value" 'dray: -D spp: expected NAME=VALUE' "$dray" render "$X" -D spp -o "$tmp/z.png"
msg "-D on a JSON scene" "dray: $S: -D defines values of Mitsuba XML scenes; this scene is JSON (use --set)" "$dray" render "$S" -D a=1 -o "$tmp/z.png"
msg "--set with two values" 'dray render: unexpected argument b=2 (--set and --wrt take one value each: --set A=1 --set B=2, --wrt P --wrt Q; see dray render --help)' \
  "$dray" render "$S" --set a=1 b=2
msg "a seed beyond long" "dray: $S: /render/seed: must be in [0, 9223372036854775807], got 18446744073709551615" \
  "$dray" render "$S" --set render.seed=18446744073709551615
msg "an origin that overflows float" "dray: $S: /camera/origin: is too far from /camera/target: their distance overflows float (keep coordinates within about 1e18)" \
  "$dray" render "$S" --set 'camera.origin=[0,2,3e38]'
msg "malformed --set JSON" 'dray: --set materials.red.albedo=[0.2,0.3: the value is not valid JSON (parse error at line 1, column 9: syntax error while parsing array - unexpected end of input; expected '"']'"'); a bare word is a string, other text must be JSON' \
  "$dray" render "$S" --set 'materials.red.albedo=[0.2,0.3'
has "$tmp/stderr" "not valid JSON" "malformed JSON after --set is named"
"$dray" render "$S" --set shapes.left.radius=1e400 > /dev/null 2> "$tmp/stderr"
has "$tmp/stderr" "--set shapes.left.radius=1e400: the value is not valid JSON" "a number beyond double is not valid JSON"
msg "colliding outputs" "dray: -o and --variance both name $tmp/w.exr: give each output its own file" \
  "$dray" render "$S" $small -o "$tmp/w.exr" --variance "$tmp/w.exr"
msg "a variance named like a derivative image" "dray: --variance and --wrt shapes.left.radius both name $tmp/c.d.shapes.left.radius.exr: give each output its own file" \
  "$dray" render "$S" $small -o "$tmp/c.exr" --wrt shapes.left.radius --variance "$tmp/c.d.shapes.left.radius.exr"
[ ! -e "$tmp/w.exr" ] && [ ! -e "$tmp/c.exr" ] || { echo "FAIL a refused render created a file"; fail=1; }
msg "a PNG variance in diff" "dray: $tmp/v.png: --ref-variance must be an EXR (the variance from dray render --variance); a PNG holds neither the linear values nor the sample count" \
  "$dray" diff "$tmp/m.exr" "$tmp/m.exr" --ref-variance "$tmp/v.png"
msg "a heatmap over an input" "dray: --heatmap $tmp/m.exr is also an input: give the heatmap its own file" \
  "$dray" diff "$tmp/m3.exr" "$tmp/m.exr" --heatmap "$tmp/m.exr"
msg "--exposure with EXR" "dray: --exposure applies to PNG output only (EXR stays linear): $tmp/e.exr" "$dray" render "$S" $small --exposure 1 -o "$tmp/e.exr"
msg "a crop outside the image" "dray: --crop 0 0 40 10: need 0 <= X0 < X1 <= 32 and 0 <= Y0 < Y1 <= 24 (the image is 32x24)" \
  "$dray" render "$S" $small --crop 0 0 40 10 -o "$tmp/crop.exr"

# No output is ever created by a render that fails or is interrupted.
mkdir -p "$tmp/out3"
timeout --preserve-status -s INT 2 "$dray" render "$S" -o "$tmp/out3/img.png" --variance "$tmp/out3/var.exr" --spp 4096 --threads 1 > /dev/null 2> "$tmp/stderr"
code=$?
[ "$code" = 130 ] && [ -z "$(ls -A "$tmp/out3")" ] && ok=1 || ok=0
[ $ok = 1 ] && echo "ok   Ctrl-C during a render: exit 130, no file (not even 0 bytes)" || { echo "FAIL interrupted render: exit $code, files: $(ls "$tmp/out3")"; fail=1; }
has "$tmp/stderr" "dray render: interrupted; nothing was written" "the interruption is said"
DRAY_FAULT_TILE=3 "$dray" render "$S" $small -o "$tmp/out3/img.png" --variance "$tmp/out3/var.exr" > /dev/null 2>&1
code=$?
[ "$code" = 3 ] && [ -z "$(ls -A "$tmp/out3")" ] && echo "ok   a failing kernel: exit 3, no file" || { echo "FAIL failing kernel: exit $code, files: $(ls "$tmp/out3")"; fail=1; }
${3/ N / 3 } "$dray" render "$S" -o "$tmp/out3/img.png" --variance "$tmp/out3/var.exr" --spp 4096 --threads 1 > /dev/null 2>&1 &
mpipid=$!
for i in $(seq 1 100); do [ "$(pgrep -f "render $S -o $tmp/out3" | wc -l)" -ge 4 ] && break; sleep 0.1; done
sleep 0.5
pkill -9 -f "render $S -o $tmp/out3" -n 2>/dev/null  # the newest: a rank
wait $mpipid 2>/dev/null
[ -z "$(ls -A "$tmp/out3")" ] && echo "ok   kill -9 of a rank: no file" || { echo "FAIL kill -9 of a rank left $(ls "$tmp/out3")"; fail=1; }

# Parameter names work as --set keys; params builds no BVH.
expect 0 "--set with a parameter name (shapes.bunny.translate)" "$dray" params "$scenes/bunny.json" --set "shapes.bunny.translate=[0,0,1]"
grep -E "^shapes.bunny.translate +0 0 1$" "$tmp/stdout" > /dev/null && echo "ok   the transform parameter took the value" || { echo "FAIL translate not set"; cat "$tmp/stdout"; fail=1; }
# A scene without light warns, once.
expect 0 "a scene without light renders" "$dray" render "$S" $small -q -o "$tmp/dark.png" --set 'lights=[]' --set materials.lamp.emission=null
has "$tmp/stderr" "dray: warning: $S: the scene has no light and no emissive material: the image will be black" "no light: a warning"
# Times: load and render apart.
expect 0 "summary times" "$dray" render "$S" $small -o "$tmp/t.png"
grep -qE "loaded in [0-9.]+ s \(BVH included\), rendered in [0-9.]+ s" "$tmp/stdout" && echo "ok   load and render times apart" || { echo "FAIL times"; cat "$tmp/stdout"; fail=1; }
# More ranks than 16-pixel tiles: every rank gets work.
expect 0 "16x16 on 2 ranks" ${3/ N / 2 } "$dray" render "$S" --set camera.width=16 --set camera.height=16 --spp 64 --threads 1 --stats -o "$tmp/16.png"
# Each rank's busy time is above zero (a rank without tiles reports 0.000); the ratio of the two
# depends on what the tiles show and on the machine's load, so it is printed, not judged.
busy=$(sed -n 's/.*busy seconds per rank: \([0-9. ]*\);.*/\1/p' "$tmp/stdout")
echo "$busy" | awk 'NF == 2 && $1 > 0 && $2 > 0 {ok = 1} END {exit !ok}' && echo "ok   both ranks render (busy seconds $busy)" || { echo "FAIL a rank without work: busy seconds '$busy'"; cat "$tmp/stdout"; fail=1; }
# --wrt before SCENE no longer swallows it.
expect 0 "--wrt before SCENE" "$dray" render --wrt materials.red.albedo "$S" $small -q -o "$tmp/wb.png"
# --version, help with defaults and --stats.
expect 0 "--version" "$dray" --version
has "$tmp/stdout" "dray 0.1" "--version names the version"
expect 0 "render --help" "$dray" render --help
has "$tmp/stdout" "--stats" "help documents --stats"
grep -qE -- "--tile-size INT=16" "$tmp/stdout" && echo "ok   help shows the --tile-size default" || { echo "FAIL no default for --tile-size"; fail=1; }
# --exposure darkens a PNG; EXR is unchanged.
"$dray" render "$S" $small -q -o "$tmp/e0.png"
"$dray" render "$S" $small -q -o "$tmp/e2.png" --exposure -2
expect 1 "--exposure -2 changes the PNG" "$dray" diff "$tmp/e2.png" "$tmp/e0.png" --tol 0.001
# --crop: the window's pixels, bitwise (the window of the full image is checked in mpi_tiles_test).
expect 0 "--crop" "$dray" render "$S" $small -q -o "$tmp/crop.exr" --crop 4 2 20 10
"$dray" diff "$tmp/crop.exr" "$tmp/crop.exr" > "$tmp/stdout"
has "$tmp/stdout" "(16x8)" "the cropped image is the window's size"
# render.crop in the scene (Mitsuba's film crop) is the same window; --crop overrides it.
expect 0 "render.crop" "$dray" render "$S" $small -q -o "$tmp/crop2.exr" --set "render.crop=[4, 2, 20, 10]"
expect 0 "render.crop gives --crop's image" cmp "$tmp/crop.exr" "$tmp/crop2.exr"
expect 0 "--crop overrides render.crop" "$dray" render "$S" $small -q -o "$tmp/crop3.exr" --set "render.crop=[0, 0, 8, 8]" --crop 4 2 20 10
expect 0 "--crop's window wins" cmp "$tmp/crop.exr" "$tmp/crop3.exr"

# --sensor: a scene's second sensor renders as a scene whose one camera it is, bitwise.
front='{"origin": [0, 1, 5], "target": [0, 0, 0], "width": 32, "height": 24}'
top='"origin": [1, 6, 2], "target": [0, 0, 0], "width": 20, "height": 12'
expect 0 "--sensor by name" "$dray" render "$S" $small -q -o "$tmp/sensor.exr" --set "camera=[$front, {\"name\": \"top\", $top}]" --sensor top
expect 0 "--sensor by index" "$dray" render "$S" $small -q -o "$tmp/sensor1.exr" --set "camera=[$front, {\"name\": \"top\", $top}]" --sensor 1
expect 0 "the scene with that one camera" "$dray" render "$S" $small -q -o "$tmp/one.exr" --set "camera={$top}"
expect 0 "--sensor top gives its image" cmp "$tmp/sensor.exr" "$tmp/one.exr"
expect 0 "--sensor 1 is top" cmp "$tmp/sensor1.exr" "$tmp/one.exr"
msg "an unknown sensor" "dray: no sensor \"side\": the scene has 0 (camera), 1 (top)" \
  "$dray" render "$S" $small -q -o "$tmp/no.exr" --set "camera=[$front, {\"name\": \"top\", $top}]" --sensor side

# render.aovs (Mitsuba's aov): named channels beside R, G, B in an EXR; a PNG holds the image and says so.
expect 0 "AOVs to EXR" "$dray" render "$S" $small -q -o "$tmp/aov.exr" --set 'render.aovs="dd:depth,nn:sh_normal"'
grep -aq "dd.T" "$tmp/aov.exr" && grep -aq "nn.Z" "$tmp/aov.exr" && echo "ok   the EXR names the AOV channels" || { echo "FAIL no AOV channels in the EXR"; fail=1; }
expect 0 "AOVs with a PNG" "$dray" render "$S" $small -q -o "$tmp/aov.png" --set 'render.aovs="dd:depth"'
has "$tmp/stderr" "the film's channels (render.pixel_format, render.aovs) are written to EXR outputs only" "a PNG output says where the AOVs go"

# regress: a missing golden is reported before rendering; --update-goldens makes them.
mkdir -p "$tmp/suite/cases"
cp "$scenes/../tests/regression/cases/furnace-sphere.json" "$tmp/suite/cases/s.json"
msg "regress without goldens" "dray: $tmp/suite: 2 golden images missing ($tmp/suite/golden/s.exr, $tmp/suite/golden/s.var.exr); make them with dray regress $tmp/suite --update-goldens" \
  "$dray" regress "$tmp/suite" --report "$tmp/rep"
expect 2 "regress without goldens" "$dray" regress "$tmp/suite" --report "$tmp/rep"
has "$tmp/stderr" "2 golden images missing" "missing goldens named before rendering"
expect 0 "regress --update-goldens" "$dray" regress "$tmp/suite" --update-goldens --golden-spp 256
expect 0 "regress passes against its own goldens" "$dray" regress "$tmp/suite" --report "$tmp/rep"
exit $fail
