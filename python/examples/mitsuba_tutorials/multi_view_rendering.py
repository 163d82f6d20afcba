"""Mitsuba 3's tutorial "Multi-view rendering" (mitsuba-tutorials: rendering/multi_view_rendering.ipynb)
on dray: a teapot from a dict, six sensors loaded alone from their dicts on a circle around it,
the scene rendered through each.

What differs from the notebook:
- `import mitsuba as mi; mi.set_variant(...)` -> `import dray`
- `mitsuba.ScalarTransform4f` -> `dray.ScalarTransform4f`; `mi.ScalarPoint3f([0, 0, r])` -> a list
- `mi.load_dict`, `mi.render(scene, spp=16, sensor=sensor)` -> `dray.` the same
- images written to PNG files instead of plotted (matplotlib); --spp for a quick run

Run: /usr/bin/python3 python/examples/mitsuba_tutorials/multi_view_rendering.py [--spp S] [--output DIR]
"""
import dray
from _tutorial import arguments, save

args = arguments(__doc__, spp=16)

# --- cell 2 ---
# Create an alias for convenience
from dray import ScalarTransform4f as T

scene = dray.load_dict({
    'type': 'scene',
    # The keys below correspond to object IDs and can be chosen arbitrarily
    'integrator': {'type': 'path'},
    'light': {'type': 'constant'},
    'teapot': {
        'type': 'ply',
        'filename': '../scenes/meshes/teapot.ply',
        'to_world': T().translate([0, 0, -1.5]),
        'bsdf': {
            'type': 'diffuse',
            'reflectance': {'type': 'rgb', 'value': [0.1, 0.2, 0.3]},
        },
    },
})


# --- cell 3 ---
def load_sensor(r, phi, theta):
    # Apply two rotations to convert from spherical coordinates to world 3D coordinates.
    origin = T().rotate([0, 0, 1], phi).rotate([0, 1, 0], theta) @ [0, 0, r]

    return dray.load_dict({
        'type': 'perspective',
        'fov': 39.3077,
        'to_world': T().look_at(
            origin=origin,
            target=[0, 0, 0],
            up=[0, 0, 1]
        ),
        'sampler': {
            'type': 'independent',
            'sample_count': 16
        },
        'film': {
            'type': 'hdrfilm',
            'width': 256,
            'height': 256,
            'rfilter': {
                'type': 'tent',
            },
            'pixel_format': 'rgb',
        },
    })


# --- cell 4 ---
sensor_count = 6

radius = 12
phis = [20.0 * i for i in range(sensor_count)]
theta = 60.0

sensors = [load_sensor(radius, phi, theta) for phi in phis]

# --- cell 5 ---
images = [dray.render(scene, spp=args.spp, sensor=sensor) for sensor in sensors]
for i, image in enumerate(images):
    save(args, "multi_view_rendering_%d" % i, image)
