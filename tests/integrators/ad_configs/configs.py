"""The configurations of Mitsuba 3's AD-integrator test (src/integrators/tests/test_ad_integrators.py
in mitsuba-renderer/mitsuba3, its ConfigBase and subclasses), written as dray scenes.

Each config: a dray scene (JSON as a dict), the parameter theta and how it moves dray's
parameters (`wrt`: [(dray parameter, d value / d theta)], so that the derivative image is
sum_k c_k dI/dp_k), the resolution, spp, finite-difference step and Mitsuba's thresholds
(error = |fwd - ref| / max(|ref|, 0.2) per pixel and channel; its mean and max; the backward check
against the reference's mean). Mitsuba's max_depth counts the camera segment: its 2 is dray's 1.
The camera is Mitsuba's default perspective: focal length 50 mm, x fov 34.0221 degrees, at (0, 0, 4)
looking at the origin, a box filter. Meshes come from ../shared/mitsuba-data/common/meshes (test
data, not copied): the configs that need one are skipped, saying so, when it is absent.
"""
import os

ROOT = os.path.dirname(os.path.abspath(__file__))
MESHES = os.path.normpath(os.path.join(ROOT, "..", "..", "..", "..", "shared", "mitsuba-data", "common", "meshes"))
SPHERE_OBJ = os.path.join(MESHES, "sphere.obj")
FOV = 34.0221  # Mitsuba's default x fov (50 mm on 36 x 24); square images: the y fov too


def camera(res):
    return {"origin": [0, 0, 4], "target": [0, 0, 0], "up": [0, 1, 0], "fov_y": FOV, "width": res, "height": res}


def quad(name, corner, edge_u, edge_v, material):
    return {"name": name, "type": "quad", "corner": corner, "edge_u": edge_u, "edge_v": edge_v, "material": material}


PLANE = [-1, -1, 0], [2, 0, 0], [0, 2, 0]               # Mitsuba's rectangle, facing +z
SIDE = [1.25, -1, 0], [0, 0, 2], [0, 2, 0]               # translate(1.25, 0, 1) rotate_y(-90): facing -x
SMALL_SPHERE = {"name": "sphere", "type": "sphere", "center": [0, 0, 0], "radius": 0.25, "material": "grey"}
GREY = {"type": "diffuse", "reflectance": 0.5}           # Mitsuba's default BSDF
WHITE = {"type": "diffuse", "reflectance": 1.0}
CONSTANT = {"name": "light", "type": "environment", "radiance": 1.0}


def scene(res, max_depth, materials, shapes, lights=()):
    return {"camera": camera(res), "render": {"max_depth": max_depth - 1, "spp": 16},
            "materials": materials, "shapes": list(shapes), "lights": list(lights)}


def config(name, scene_doc, wrt, res=128, spp=1024, mean=0.05, max_=0.5, mean_bwd=0.05, eps=1e-3, needs=(), fd_eps=None):
    """eps: Mitsuba's ref_fd_epsilon. fd_eps: the step dray's reference takes (default eps). Where
    Mitsuba steps 1e-4, an edge moves 0.005 pixels: at 12,000 spp about ten samples per pixel
    cross it, and the per-pixel difference is Poisson noise (zeros beside 3x the mean), so dray's
    reference steps 2e-3 there (0.1 pixels), the edge still well inside its pixel."""
    scene_doc["camera"]["width"] = scene_doc["camera"]["height"] = res
    return {"name": name, "scene": scene_doc, "wrt": wrt, "res": res, "spp": spp, "mean": mean, "max": max_,
            "mean_bwd": mean_bwd, "eps": eps, "fd_eps": fd_eps or eps, "needs": list(needs)}


def rgb(param):  # theta added to the three channels
    return [(param + "[0]", 1.0), (param + "[1]", 1.0), (param + "[2]", 1.0)]


def sphere_mesh(name, material, translate=(0, 0, 0), scale=1.0, rotate_y=0.0):
    t = {"translate": list(translate), "scale": scale}
    if rotate_y:
        t["rotate_y"] = rotate_y
    return {"name": name, "type": "mesh", "file": SPHERE_OBJ, "material": material, "transform": t}


def all_configs():
    c = []
    # DiffuseAlbedoConfig: a grey plane and a small sphere under a constant sky.
    c.append(config("diffuse_albedo", scene(128, 2, {"plane": GREY, "grey": GREY}, [quad("plane", *PLANE, "plane"), SMALL_SPHERE], [CONSTANT]),
                    rgb("materials.plane.reflectance"), mean=0.015, max_=0.25, mean_bwd=0.0005))
    # DiffuseAlbedoGIConfig: a green plane off camera bleeding onto the grey one (max_depth 3).
    c.append(config("diffuse_albedo_g_i",
                    scene(128, 3, {"plane": GREY, "grey": GREY, "green": {"type": "diffuse", "reflectance": [0.1, 1.0, 0.1]}},
                          [quad("plane", *PLANE, "plane"), SMALL_SPHERE, quad("green", *SIDE, "green")],
                          [{"name": "light", "type": "environment", "radiance": 3.0}]),
                    rgb("materials.green.reflectance"), mean=0.04, max_=0.4, mean_bwd=0.0005))
    # AreaLightRadianceConfig: an area light off camera over a white plane.
    c.append(config("area_light_radiance",
                    scene(128, 2, {"plane": WHITE, "grey": GREY, "light": {"type": "diffuse", "reflectance": 0.5, "emission": [3, 3, 3]}},
                          [quad("plane", *PLANE, "plane"), SMALL_SPHERE, quad("light", *SIDE, "light")]),
                    rgb("materials.light.emission"), mean=0.02, max_=0.4, mean_bwd=0.0005))
    # DirectlyVisibleAreaLightRadianceConfig.
    c.append(config("directly_visible_area_light_radiance",
                    scene(128, 2, {"light": {"type": "diffuse", "reflectance": 0.5, "emission": [1, 1, 1]}}, [quad("light", *PLANE, "light")]),
                    rgb("materials.light.emission"), mean=0.02, max_=0.2, mean_bwd=0.02))
    # PointLightIntensityConfig.
    c.append(config("point_light_intensity",
                    scene(128, 2, {"plane": WHITE, "grey": GREY}, [quad("plane", *PLANE, "plane"), SMALL_SPHERE],
                          [{"name": "light", "type": "point", "position": [1.25, 0, 1], "intensity": [5, 5, 5]}]),
                    rgb("lights.light.intensity"), mean=0.02, max_=0.2, mean_bwd=0.002))
    # ConstantEmitterRadianceConfig (a scalar radiance: its three channels move together).
    c.append(config("constant_emitter_radiance",
                    scene(128, 2, {"plane": GREY, "grey": GREY}, [quad("plane", *PLANE, "plane"), SMALL_SPHERE], [CONSTANT]),
                    rgb("lights.light.radiance"), mean=0.02, max_=0.1, mean_bwd=0.02))
    # TranslateDiffuseRectangleConstantConfig: the plane's silhouette against the sky, along +x.
    c.append(config("translate_diffuse_rectangle_constant",
                    scene(128, 2, {"plane": GREY}, [quad("rectangle", *PLANE, "plane")], [CONSTANT]),
                    [("shapes.rectangle.corner[0]", 1.0)], mean=0.02, max_=0.5, mean_bwd=0.25, eps=8e-4))
    # TranslateRectangleEmitterOnBlackConfig.
    c.append(config("translate_rectangle_emitter_on_black",
                    scene(128, 2, {"light": {"type": "diffuse", "reflectance": 0.5, "emission": [1, 1, 1]}},
                          [quad("light", [0.25, -1, 0], [2, 0, 0], [0, 2, 0], "light")]),
                    [("shapes.light.corner[0]", 1.0)], mean=0.03, max_=1.0, mean_bwd=0.2))
    # TranslateSphereEmitterOnBlackConfig: Mitsuba's sphere.obj at (1.25, 0, 0).
    emit1 = {"light": {"type": "diffuse", "reflectance": 0.5, "emission": [1, 1, 1]}}
    c.append(config("translate_sphere_emitter_on_black",
                    scene(128, 2, emit1, [sphere_mesh("light", "light", (1.25, 0, 0), 1.0, 180.0)]),
                    [("shapes.light.translate[0]", 1.0)], mean=0.08, max_=2.0, mean_bwd=0.15, eps=1e-4, needs=[SPHERE_OBJ],
                    fd_eps=2e-3))
    # ScaleSphereEmitterOnBlackConfig: positions x (1 + theta) about the origin.
    c.append(config("scale_sphere_emitter_on_black",
                    scene(64, 2, emit1, [sphere_mesh("light", "light")]),
                    [("shapes.light.scale", 1.0)], res=64, mean=0.08, max_=0.5, mean_bwd=0.1, needs=[SPHERE_OBJ]))
    # TranslateOccluderAreaLightConfig: a small bright sphere light, an occluder between it and the plane.
    lamp = {"type": "diffuse", "reflectance": 0.5, "emission": [1000, 1000, 1000]}
    c.append(config("translate_occluder_area_light",
                    scene(128, 2, {"plane": GREY, "grey": GREY, "lamp": lamp},
                          [quad("plane", *PLANE, "plane"), sphere_mesh("occluder", "grey", (2, 0, 2), 0.25),
                           sphere_mesh("light", "lamp", (4, 0, 4), 0.05)]),
                    [("shapes.occluder.translate[0]", 1.0)], spp=16768, mean=0.03, max_=1.75, mean_bwd=0.25, needs=[SPHERE_OBJ]))
    # TranslateShadowReceiverAreaLightConfig: the plane moves under the same shadow.
    c.append(config("translate_shadow_receiver_area_light",
                    scene(128, 2, {"plane": GREY, "grey": GREY, "lamp": lamp},
                          [quad("plane", *PLANE, "plane"), sphere_mesh("occluder", "grey", (2, 0, 2), 0.25),
                           sphere_mesh("light", "lamp", (4, 0, 4), 0.05)]),
                    [("shapes.plane.corner[0]", 1.0)], spp=4096, mean=0.02, max_=0.5, mean_bwd=0.25, eps=1e-4, needs=[SPHERE_OBJ],
                    fd_eps=2e-3))
    return c


def missing(cfg):
    """What a config needs and this machine lacks (empty: it can run)."""
    return [f for f in cfg["needs"] if not os.path.exists(f)]


def ref_path(cfg):
    return os.path.join(ROOT, "refs", cfg["name"] + ".exr")


def shift(scene, wrt, delta):
    """Moves theta by delta: each dray parameter of `wrt` by its coefficient times delta."""
    import numpy as np
    values = scene.params()
    changed = {}
    for name, coef in wrt:
        base, _, index = name.partition("[")
        v = changed.get(base, np.array(values[base], dtype=np.float32, copy=True))
        if index:
            v[int(index.rstrip("]"))] += np.float32(coef * delta)
        else:
            v = v + np.float32(coef * delta)
        changed[base] = v
    scene.update(changed)
