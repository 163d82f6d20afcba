"""Mitsuba's variants and scene helpers by their names: ``dray.variants()``, ``dray.set_variant``,
``dray.variant()`` and ``dray.cornell_box()``. dray renders and differentiates in one RGB variant;
Mitsuba's CPU RGB variants (``scalar_rgb``, ``llvm_ad_rgb``, ``llvm_rgb``, ``scalar_rgb`` with AD)
all name it. The CUDA variants need a GPU dray does not use, and the mono, spectral and polarized
variants are not rendered yet: naming one raises a ValueError that says so."""

_RGB = ("scalar_rgb", "llvm_ad_rgb", "llvm_rgb")
_variant = None


def variants():
    """The variants dray renders (Mitsuba's ``mi.variants()``): its CPU RGB names, one variant."""
    return list(_RGB)


def variant():
    """The variant set by set_variant, or None before (Mitsuba's ``mi.variant()``)."""
    return _variant


def set_variant(*names):
    """Mitsuba's ``mi.set_variant(name, …)``: the first of `names` dray renders (CUDA variants are
    skipped, as Mitsuba skips them without a GPU); a ValueError if none is."""
    global _variant
    for name in names:
        if name in _RGB:
            _variant = name
            return
    other = [n for n in names if not n.startswith("cuda_")]
    if other:
        raise ValueError("variant %s: dray renders Mitsuba's RGB variants (%s, one and the same); mono, spectral and "
                         "polarized rendering are not available yet" % (other[0], ", ".join(_RGB)))
    raise ValueError("variant %s: CUDA variants need a GPU; dray renders on CPUs (use %s)" % (names[0] if names else "()", _RGB[1]))


def cornell_box():
    """Mitsuba's ``mi.cornell_box()``: the dict of its Cornell box (a path tracer of max_depth 8, a
    256² film with a gaussian filter, 64 spp, three diffuse colours, a rectangle light), for
    ``dray.load_dict``."""
    from .mitsuba_dict import ScalarTransform4f as T

    def rgb(v):
        return {"type": "rgb", "value": v}

    def wall(transform, bsdf):
        return {"type": "rectangle", "to_world": transform, "bsdf": {"type": "ref", "id": bsdf}}

    return {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 8},
        "sensor": {"type": "perspective", "fov_axis": "smaller", "near_clip": 0.001, "far_clip": 100.0,
                   "focus_distance": 1000, "fov": 39.3077,
                   "to_world": T().look_at(origin=[0, 0, 3.90], target=[0, 0, 0], up=[0, 1, 0]),
                   "sampler": {"type": "independent", "sample_count": 64},
                   "film": {"type": "hdrfilm", "width": 256, "height": 256, "rfilter": {"type": "gaussian"},
                            "pixel_format": "rgb", "component_format": "float32"}},
        "white": {"type": "diffuse", "reflectance": rgb([0.885809, 0.698859, 0.666422])},
        "green": {"type": "diffuse", "reflectance": rgb([0.105421, 0.37798, 0.076425])},
        "red": {"type": "diffuse", "reflectance": rgb([0.570068, 0.0430135, 0.0443706])},
        "light": dict(wall(T().translate([0.0, 0.99, 0.01]).rotate([1, 0, 0], 90).scale([0.23, 0.19, 0.19]), "white"),
                      emitter={"type": "area", "radiance": rgb([18.387, 13.9873, 6.75357])}),
        "floor": wall(T().translate([0.0, -1.0, 0.0]).rotate([1, 0, 0], -90), "white"),
        "ceiling": wall(T().translate([0.0, 1.0, 0.0]).rotate([1, 0, 0], 90), "white"),
        "back": wall(T().translate([0.0, 0.0, -1.0]), "white"),
        "green-wall": wall(T().translate([1.0, 0.0, 0.0]).rotate([0, 1, 0], -90), "green"),
        "red-wall": wall(T().translate([-1.0, 0.0, 0.0]).rotate([0, 1, 0], 90), "red"),
        "small-box": {"type": "cube", "to_world": T().translate([0.335, -0.7, 0.38]).rotate([0, 1, 0], -17).scale(0.3),
                      "bsdf": {"type": "ref", "id": "white"}},
        "large-box": {"type": "cube", "to_world": T().translate([-0.33, -0.4, -0.28]).rotate([0, 1, 0], 18.25).scale([0.3, 0.61, 0.3]),
                      "bsdf": {"type": "ref", "id": "white"}},
    }
