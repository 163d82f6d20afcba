#!/usr/bin/env bash
# dray optimize's report.html: written while the job runs (reloading itself) and at its end
# (not reloading), self-contained (every image inline, no external reference), a resumed run's
# page keeping the earlier iterations and snapshots; in headless Chromium when installed: a
# non-blank screenshot, every image decoded, no console message.
# Usage: report_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }

job() {  # job FILE OUTPUT ITERATIONS
  cat > "$1" <<JSON
{ "scene": "$scenes/light-fit.json", "target": { "scene": "$scenes/light-truth.json", "spp": 16 },
  "params": { "lights.bulb.position": { "lr": 0.05 } },
  "optimizer": { "type": "adam", "iterations": $3 }, "spp": 2, "output": "$2", "snapshot_every": 1, "checkpoint_every": 3 }
JSON
}

# While it runs: a page that says so and reloads itself.
job "$tmp/long.json" "$tmp/long" 400
"$dray" optimize "$tmp/long.json" -q --threads 1 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s "$tmp/long/report.html" ] && break; sleep 0.05; done
grep -q 'http-equiv="refresh"' "$tmp/long/report.html" && grep -q "running" "$tmp/long/report.html" \
  && ok "while the job runs the page says so and reloads itself" || bad "running report"
kill $pid 2> /dev/null; wait $pid 2> /dev/null

# At the end: finished, no reload, every image inline.
job "$tmp/a.json" "$tmp/a" 6
"$dray" optimize "$tmp/a.json" -q > /dev/null || bad "optimize exited $?"
page="$tmp/a/report.html"
grep -q "finished; iteration 6 of 6" "$page" && ! grep -q 'http-equiv="refresh"' "$page" \
  && ok "the finished page says so and does not reload" || bad "finished report"
[ "$(grep -o '<svg' "$page" | wc -l)" -ge 5 ] && ok "loss, gradient and 3 parameter charts" || bad "charts"
grep -q "lights.bulb.position\[1\] (truth 2.2)" "$page" && ok "a parameter's true value from the target scene" || bad "truth"
imgs=$(grep -o '<img [^>]*src="[^"]*"' "$page" | wc -l)
inline=$(grep -o '<img [^>]*src="data:image/png;base64,[^"]*"' "$page" | wc -l)
[ "$imgs" = 9 ] && [ "$inline" = "$imgs" ] && ok "target, current, difference and 6 snapshots, all inline" \
  || bad "images: $inline inline of $imgs"
! grep -Eq '(src|href)="(https?:|file:|/)' "$page" && ok "no external reference" || bad "an external reference"

# Resumed: the earlier iterations and snapshots stay on the page.
sed 's/"iterations": 6/"iterations": 10/' "$tmp/a.json" > "$tmp/b.json"
"$dray" optimize "$tmp/b.json" -q --resume > /dev/null || bad "resume exited $?"
grep -q "finished; iteration 10 of 10" "$page" && grep -q 'alt="iteration 2"' "$page" && grep -q 'alt="iteration 9"' "$page" \
  && ok "a resumed run's page keeps the earlier snapshots" || bad "resumed report"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skip Chromium checks: no chromium installed"
  exit $fail
fi
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars)
timeout 120 "$browser" "${flags[@]}" --window-size=1100,1400 --screenshot="$tmp/shot.png" "file://$page" > /dev/null 2>&1
# Non-blank: the decoded pixels hold many values (a blank page has one).
/usr/bin/python3 - "$tmp/shot.png" <<'PY' && ok "the screenshot is not blank" || bad "blank screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
sys.exit(0 if len(set(zlib.decompress(idat))) > 64 else 1)
PY
timeout 120 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$page" > "$tmp/dom.html" 2> "$tmp/console.txt"
grep -q 'data-images-loaded="13/13"' "$tmp/dom.html" && ok "every image decodes (13/13: 3 and 10 snapshots)" \
  || { bad "images decoded: $(grep -o 'data-images-loaded="[^"]*"' "$tmp/dom.html")"; }
! grep -q "CONSOLE" "$tmp/console.txt" && ok "no console message" || { bad "console messages"; grep CONSOLE "$tmp/console.txt"; }
exit $fail
