#!/usr/bin/env bash
# A job's schedule (learning rates and samples changed after given iterations) and a particle
# tracer's gradient pass with its own samples (spp_grad), as Mitsuba's caustics tutorial runs them.
# Usage: optimize_schedule_test.sh DRAY SCENES_DIR "MPIEXEC -n N FLAGS"
set -uo pipefail
dray=$(realpath "$1") scenes=$(realpath "$2") mpiexec=$3
source "$(dirname "$0")/optimize_lib.sh"

# scenes/lens.json at 24² (ptracer), its exit face turned 2° about z; targets: the unturned lens,
# and a flat image of 100 (brighter than every pixel: the l1 loss's adjoint is then -1/N
# everywhere, whatever the primal).
lens_scenes
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
with open(tmp + "/bright.hdr", "wb") as f:  # Radiance RGBE, flat scanlines: 100 = 0.78125 * 2^7
    f.write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 24 +X 24\n" + bytes([200, 200, 200, 135]) * (24 * 24))
def job(name, iterations=3, lr=0.2, spp=8, target=None, loss="l2", **extra):
    j = {"scene": tmp + "/lens-start.json",
         "target": {"image": tmp + "/bright.hdr"} if target == "bright" else {"scene": tmp + "/lens-truth.json", "spp": 32},
         "params": {"shapes.lens.rotate_z": {"lr": lr}}, "optimizer": {"type": "adam", "iterations": iterations},
         "loss": loss, "spp": spp, "output": tmp + "/" + name, "checkpoint_every": 1, "snapshot_every": 0}
    j.update(extra)
    json.dump(j, open(tmp + "/" + name + ".json", "w"))
halve = [{"after": 1, "lr_factor": 0.5}]
job("steps")
job("halved", schedule=halve)
job("doubled", iterations=2, lr=1e-12, schedule=[{"after": 1, "spp_factor": 2}])
job("spp16", iterations=2, lr=1e-12, spp=16)
job("grad8", iterations=1, spp=16, spp_grad=8, target="bright", loss="l1")
job("plain8", iterations=1, spp=8, target="bright", loss="l1")
job("plain16", iterations=1, spp=16, target="bright", loss="l1")
both = [{"after": 1, "lr_factor": 0.5, "spp_factor": 2}]
job("whole", spp=16, spp_grad=8, schedule=both)
job("resumed", iterations=1, spp=16, spp_grad=8, schedule=both)
job("resumed-rest", spp=16, spp_grad=8, schedule=both, output=tmp + "/resumed")
job("resumed-other", spp=16, spp_grad=8, schedule=[{"after": 1, "lr_factor": 0.25, "spp_factor": 2}], output=tmp + "/resumed")
PY
for name in steps halved doubled spp16 grad8 plain8 plain16; do
  "$dray" optimize "$tmp/$name.json" --threads 2 -q > /dev/null || bad "$name exited $?"
done
row() { sed -n "$(($2 + 1))p" "$tmp/$1/progress.csv"; }  # row NAME K: progress.csv's iteration K
col() { row "$1" "$2" | cut -d, -f"$3"; }                   # 2 loss, 3 gradient norm, 5 rotate_z

# The learning rate halved after iteration 1: iteration 2's step (the values before iteration 3)
# is half the unscheduled run's, whose iterations 1 and 2 are the same.
python3 - "$(col steps 2 5)" "$(col steps 3 5)" "$(col halved 2 5)" "$(col halved 3 5)" <<'PY' \
  && ok "lr_factor 0.5 after iteration 1: iteration 2's step is half the constant schedule's" || bad "the halved step"
import sys
v2, v3, h2, h3 = map(float, sys.argv[1:])
assert v2 == h2 and v2 != v3, (v2, h2, v3)
assert abs((h2 - h3) / (v2 - v3) - 0.5) < 1e-6  # progress.csv: 9 digits, ((h2 - h3), (v2 - v3))
PY
# The samples doubled after iteration 1 (values held by a negligible learning rate): iteration 2
# renders as a 16-spp run's iteration 2, iteration 1 as an 8-spp run's (not as the 16-spp run's).
[ "$(col doubled 2 2)" = "$(col spp16 2 2)" ] && [ "$(col doubled 1 2)" != "$(col spp16 1 2)" ] \
  && ok "spp_factor 2 after iteration 1: iteration 2's loss is the 16-spp run's, $(col doubled 2 2)" \
  || bad "doubled samples: losses $(col doubled 1 2) $(col doubled 2 2) against $(col spp16 1 2) $(col spp16 2 2)"
# spp_grad: the gradient pass traces its own count. Against a constant adjoint the gradient is the
# gradient pass's alone: spp 16 with spp_grad 8 gives the 8-spp run's gradient, not the 16-spp run's.
[ "$(col grad8 1 3)" = "$(col plain8 1 3)" ] && [ "$(col grad8 1 3)" != "$(col plain16 1 3)" ] \
  && [ "$(col grad8 1 2)" = "$(col plain16 1 2)" ] \
  && ok "spp_grad 8 with spp 16: the 8-spp gradient ($(col grad8 1 3)) and the 16-spp loss" \
  || bad "spp_grad: gradients $(col grad8 1 3) $(col plain8 1 3) $(col plain16 1 3), losses $(col grad8 1 2) $(col plain16 1 2)"

# Resume across a schedule step: bitwise the uninterrupted run; the console names the step.
"$dray" optimize "$tmp/whole.json" --threads 2 > "$tmp/whole.out" 2>&1 || bad "whole exited $?"
grep -q "^schedule after iteration 1: learning rates x0.5, 32 spp (16 for the gradient)$" "$tmp/whole.out" \
  && ok "the console prints the schedule's step" || { bad "the schedule's console line"; cat "$tmp/whole.out"; }
${mpiexec/ N / 2 } "$dray" optimize "$tmp/resumed.json" --threads 1 -q > /dev/null || bad "resumed (first) exited $?"
"$dray" optimize "$tmp/resumed-other.json" --resume -q > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -qF "settings changed since the checkpoint (/schedule/0/lr_factor)" "$tmp/err" \
  && ok "--resume with another schedule is refused, naming it" || { bad "resume with another schedule"; cat "$tmp/err"; }
${mpiexec/ N / 2 } "$dray" optimize "$tmp/resumed-rest.json" --threads 1 -q --resume > /dev/null || bad "resumed (rest) exited $?"
cmp -s "$tmp/whole/checkpoint.json" "$tmp/resumed/checkpoint.json" \
  && ok "stopped after iteration 1 on 2 ranks and resumed across the step: bitwise the uninterrupted 1x2 run" \
  || bad "the resumed run differs"

# A medium's grid upsampled by the job (Mitsuba's volume tutorial grows its grid): a 4³ ramp,
# linear in the voxel's indices, doubled after iteration 1 to 8³ and again after 2 to 16³ (a rate
# of 1e-30 keeps the values): each axis resampled linearly at half-voxel centres, edges clamped
# (the closed form below); the same on 2 ranks, and resumed across an upsampling.
/usr/bin/python3 - "$scenes" "$tmp" <<'PY'
import json, struct, sys
import numpy as np
scenes, tmp = sys.argv[1:]
n = 4
z, y, x = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
ramp = (0.1 + 0.2 * x + 0.05 * y + 0.01 * z).astype("<f4")
with open(tmp + "/ramp.vol", "wb") as f:
    f.write(b"VOL\x03" + struct.pack("<5i", 1, n, n, n, 1) + struct.pack("<6f", 0, 0, 0, 1, 1, 1) + ramp.tobytes())
s = json.load(open(scenes + "/smoke-fit.json"))
s["media"]["smoke"]["sigma_t"]["filename"] = tmp + "/ramp.vol"
s["camera"].update(width=16, height=16)
for shape in s["shapes"]:
    if "file" in shape:
        shape["file"] = scenes + "/" + shape["file"]
json.dump(s, open(tmp + "/ramp.json", "w"))
def job(name, iterations):
    j = {"scene": tmp + "/ramp.json", "target": {"scene": tmp + "/ramp.json", "spp": 2},
         "params": {"media.smoke.sigma_t": {"lr": 1e-30, "upsample": [1, 2]}}, "optimizer": {"type": "adam", "iterations": iterations},
         "spp": 1, "output": tmp + "/" + name, "checkpoint_every": 1, "snapshot_every": 0}
    json.dump(j, open(tmp + "/" + name + ".json", "w"))
job("grid", 3)
job("grid-first", 2)
PY
"$dray" optimize "$tmp/grid.json" --threads 2 > "$tmp/grid.out" 2>&1 || bad "grid job exited $?"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/grid.json" -o "$tmp/grid2" --threads 1 -q > /dev/null || bad "grid job on 2 ranks exited $?"
${mpiexec/ N / 2 } "$dray" optimize "$tmp/grid-first.json" -o "$tmp/grid-resumed" --threads 1 -q > /dev/null || bad "grid job's first 2 exited $?"
"$dray" optimize "$tmp/grid.json" -o "$tmp/grid-resumed" --threads 2 -q --resume > /dev/null || bad "grid job resumed exited $?"
grep -q "^upsampled media.smoke.sigma_t to 8x8x8 after iteration 1$" "$tmp/grid.out" \
  && grep -q "^upsampled media.smoke.sigma_t to 16x16x16 after iteration 2$" "$tmp/grid.out" \
  && ok "the console prints each grid upsampling" || { bad "the grid's upsampling lines"; cat "$tmp/grid.out"; }
/usr/bin/python3 - "$tmp" <<'PY' && ok "a grid upsampled twice (4³ to 16³) is the closed form of linear resampling, the same on 2 ranks and resumed" || bad "the upsampled grid"
import sys
import numpy as np
tmp = sys.argv[1]
def vol(path):
    b = open(path, "rb").read()
    head = np.frombuffer(b[4:24], "<i4")
    return head[1:5], np.frombuffer(b[48:], "<f4")
def doubled_axis(n):  # the source coordinate of each of 2n centres, clamped
    return np.clip((np.arange(2 * n) + 0.5) / 2 - 0.5, 0, n - 1)
first = doubled_axis(4)  # 8 coordinates in the 4-grid
second = doubled_axis(8)  # 16 coordinates in the 8-grid
coord = np.interp(second, np.arange(8), first)  # linear between the 8-grid's coordinates: exact for a ramp
z, y, x = np.meshgrid(coord, coord, coord, indexing="ij")
expected = 0.1 + 0.2 * x + 0.05 * y + 0.01 * z
res, got = vol(tmp + "/grid/smoke.sigma_t.vol")
assert list(res) == [16, 16, 16, 1], res
err = np.abs(got - expected.reshape(-1)).max()
assert err < 1e-6, err
for other in ("grid2", "grid-resumed"):
    assert open(f"{tmp}/{other}/smoke.sigma_t.vol", "rb").read() == open(tmp + "/grid/smoke.sigma_t.vol", "rb").read(), other
PY

# Refusals, each naming its key.
expect2() {  # expect2 WHAT MESSAGE JOB_JSON
  echo "$3" > "$tmp/bad.json"
  "$dray" optimize "$tmp/bad.json" -q > /dev/null 2> "$tmp/err"
  [ $? = 2 ] && grep -qF "$2" "$tmp/err" && ok "refused: $1" || { bad "not refused as expected: $1"; cat "$tmp/err"; }
}
base='"scene": "'$scenes'/light-fit.json", "target": {"scene": "'$scenes'/light-truth.json"}, "output": "'$tmp'/bad",
      "params": {"lights.bulb.position": {"lr": 0.05}}, "optimizer": {"iterations": 5}'
expect2 "spp_grad with a path integrator" "bad.json: /spp_grad: a gradient pass with its own samples needs a particle tracer" \
  "{ $base, \"spp_grad\": 4 }"
expect2 "steps out of order" "bad.json: /schedule/1/after: steps must come after one another" \
  "{ $base, \"schedule\": [{\"after\": 3, \"lr_factor\": 0.5}, {\"after\": 2, \"lr_factor\": 0.5}] }"
expect2 "a step after the last iteration" "bad.json: /schedule/0/after: must be in [1, 5], got 9" \
  "{ $base, \"schedule\": [{\"after\": 9}] }"
expect2 "an unknown key in a step" "bad.json: /schedule/0/spp: unknown key" \
  "{ $base, \"schedule\": [{\"after\": 2, \"spp\": 2}] }"
expect2 "a learning-rate factor of 0" "bad.json: /schedule/0/lr_factor: must be > 0" \
  "{ $base, \"schedule\": [{\"after\": 2, \"lr_factor\": 0}] }"
exit $fail
