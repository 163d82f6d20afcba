#!/usr/bin/env bash
# The dray command line: outputs, flags and exit codes (0 success, 2 bad input or usage).
# Usage: cli_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$1 scenes=$2
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
expect 0 "--progress forces the bar" "$dray" render "$scenes/spheres.json" -o "$tmp/p.png" $small --progress
has "$tmp/stderr" "100%" "--progress draws the bar to 100%"
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
exit $fail
