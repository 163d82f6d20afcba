#!/usr/bin/env bash
# The dray command line: outputs, flags and exit codes (0 success, 2 bad input or usage).
# Usage: cli_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
small="--set camera.width=32 --set camera.height=24 --spp 2"
expect() {  # expect CODE DESCRIPTION COMMAND...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local got=$?
  if [ "$got" = "$want" ]; then echo "ok   $what (exit $got)"; else
    echo "FAIL $what: exit $got, expected $want"; cat "$tmp/stderr"; fail=1; fi
}
has() {  # has FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3: no \"$2\" in $1:"; cat "$1"; fail=1; fi
}

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
has "$tmp/stderr" "spheres.json: /shapes/1/radius: must be > 0, got -1" "bad value names the JSON path"
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
# Derivative images and gradcheck
expect 0 "render --wrt" "$dray" render "$scenes/spheres.json" $small -o "$tmp/w/img.png" --wrt materials.red.albedo lights.key.intensity[1]
for p in "materials.red.albedo[0]" "materials.red.albedo[1]" "materials.red.albedo[2]" "lights.key.intensity[1]"; do
  [ -s "$tmp/w/img.d.$p.exr" ] && [ -s "$tmp/w/img.d.$p.png" ] || { echo "FAIL no img.d.$p.exr/.png"; fail=1; }
done
has "$tmp/stdout" "img.d.lights.key.intensity[1].png (colour scale" "the colour scale is printed"
has "$tmp/stdout" "4 derivatives" "the summary counts the derivatives"
expect 2 "--wrt an unknown parameter" "$dray" render "$scenes/spheres.json" $small --wrt materials.nosuch.albedo
has "$tmp/stderr" "unknown parameter \"materials.nosuch.albedo\"" "the unknown parameter is named"
expect 2 "--wrt a component out of range" "$dray" render "$scenes/spheres.json" $small --wrt "shapes.left.radius[1]"
has "$tmp/stderr" "shapes.left.radius has 1 component" "the component count is given"
grad="--set camera.width=32 --set camera.height=24 --spp 4"
expect 0 "gradcheck on parameters that move no edge" "$dray" gradcheck "$scenes/spheres.json" $grad \
  --param materials.red.albedo lights.key.intensity[0] materials.steel.tint[2] lights.sky.radiance[1]
has "$tmp/stdout" "PASS" "gradcheck passes"
has "$tmp/stdout" "materials.red.albedo[2]" "gradcheck lists each component"
expect 1 "gradcheck on a radius (a moving silhouette: no visibility term)" "$dray" gradcheck "$scenes/spheres.json" $grad \
  --param shapes.glow.radius
has "$tmp/stdout" "DIFFERS" "the difference is shown"
expect 2 "gradcheck without --param" "$dray" gradcheck "$scenes/spheres.json"
exit $fail
