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
import math
import os

ROOT = os.path.dirname(os.path.abspath(__file__))
MESHES = os.path.normpath(os.path.join(ROOT, "..", "..", "..", "..", "shared", "mitsuba-data", "common", "meshes"))
SPHERE_OBJ = os.path.join(MESHES, "sphere.obj")
RECTANGLE_OBJ = os.path.join(MESHES, "rectangle.obj")
MUSEUM = os.path.normpath(os.path.join(MESHES, "..", "textures", "museum.exr"))
# Mitsuba's configurations light with common/textures/gradient.jpg, which ../shared/mitsuba-data
# does not have: gradient.exr here is dray's stand-in (16 x 16, a ramp along u from 0 to 1 inside
# a black border; written by make_gradient below).
GRADIENT = os.path.join(ROOT, "gradient.exr")
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


def config(name, scene_doc, wrt, res=128, spp=1024, mean=0.05, max_=0.5, mean_bwd=0.05, eps=1e-3, needs=(), fd_eps=None,
           crop=None, ref_spp=12000, spp_bwd=128):
    """eps: Mitsuba's ref_fd_epsilon. fd_eps: the step dray's reference takes (default eps). Where
    Mitsuba steps 1e-4, an edge moves 0.005 pixels: at 12,000 spp about ten samples per pixel
    cross it, and the per-pixel difference is Poisson noise (zeros beside 3x the mean), so dray's
    reference steps 2e-3 there (0.1 pixels), the edge still well inside its pixel. ref_spp: the
    reference's samples (12,000 as Mitsuba's; more where an edge sweeping a hundredth of a pixel
    leaves single pixels' differences at a few samples: a larger step would carry some edges into
    the next pixel instead)."""
    scene_doc["camera"]["width"] = scene_doc["camera"]["height"] = res
    if crop:  # [x0, y0, x1, y1]: the window compared (and the one `dray render` writes)
        scene_doc["render"]["crop"] = crop
    return {"name": name, "scene": scene_doc, "wrt": wrt, "res": res, "spp": spp, "mean": mean, "max": max_,
            "mean_bwd": mean_bwd, "eps": eps, "fd_eps": fd_eps or eps, "needs": list(needs), "crop": crop,
            "ref_spp": ref_spp, "spp_bwd": spp_bwd}


def cropped(cfg, image):
    """The config's window of a full image (all of it without a crop)."""
    if not cfg["crop"]:
        return image
    x0, y0, x1, y1 = cfg["crop"]
    return image[y0:y1, x0:x1]


def make_gradient(path=GRADIENT):
    import numpy as np
    import dray
    g = np.zeros((16, 16, 3), dtype=np.float32)
    g[1:15, 1:15, :] = (np.arange(1, 15, dtype=np.float32) / 14.0)[None, :, None]
    dray.write_image(path, g)


def transform(*ops):
    """A 4 x 4 matrix from Mitsuba-style operations, applied right to left as Mitsuba's
    T().a(...) @ T().b(...): ("translate", v), ("scale", s), ("rotate", axis, degrees)."""
    import numpy as np
    m = np.eye(4)
    for op in ops:
        t = np.eye(4)
        if op[0] == "translate":
            t[:3, 3] = op[1]
        elif op[0] == "scale":
            t[:3, :3] *= op[1]
        else:
            a = np.asarray(op[1], dtype=float) / np.linalg.norm(op[1])
            th = np.radians(op[2])
            k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            t[:3, :3] = np.eye(3) + np.sin(th) * k + (1 - np.cos(th)) * k @ k  # Rodrigues
        m = m @ t
    return m


def rect(name, material, m):
    """Mitsuba's rectangle (or rectangle.obj) [-1, 1]^2 at z = 0 facing +z, placed by matrix m, as a
    dray quad with the same UV: corner (-1, -1), edge_u to (1, -1), edge_v to (-1, 1)."""
    import numpy as np
    at = lambda x, y: (m @ np.array([x, y, 0.0, 1.0]))[:3]
    c = at(-1, -1)
    return quad(name, [round(float(v), 7) for v in c], [round(float(v), 7) for v in at(1, -1) - c],
                [round(float(v), 7) for v in at(-1, 1) - c], material)


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
                    [("shapes.light.scale", 1.0)], res=64, mean=0.08, max_=0.5, mean_bwd=0.1, needs=[SPHERE_OBJ],
                    ref_spp=192000))
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
    # TranslateTexturedPlaneConfig: a 4 x 4 plane textured with museum.exr slides along +x under a
    # constant sky (its edges out of view: continuous, the texture moving under the pixels).
    textured = scene(64, 2, {"plane": {"type": "diffuse", "reflectance": "museum"}},
                     [quad("plane", [-2, -2, 0], [4, 0, 0], [0, 4, 0], "plane")], [CONSTANT])
    textured["textures"] = {"museum": {"type": "bitmap", "filename": MUSEUM}}
    c.append(config("translate_textured_plane", textured, [("shapes.plane.corner[0]", 1.0)], res=64, mean=0.1, max_=56.0,
                    needs=[MUSEUM], spp_bwd=256))
    # CropWindowConfig: a 32 x 32 window at (32, 20) of a 64 x 64 film, Gaussian filter (stddev 0.5).
    crop = scene(64, 2, {"plane": GREY}, [quad("plane", *PLANE, "plane")], [CONSTANT])
    crop["render"]["filter"] = {"type": "gaussian", "stddev": 0.5}
    c.append(config("crop_window", crop, rgb("materials.plane.reflectance"), res=64, mean=0.01, max_=0.2, mean_bwd=0.002,
                    crop=[32, 20, 64, 52]))
    # TranslatePlaneUnderEnvmapConfig: a 6 x 6 diffuse plane filling the view moves toward the camera
    # under museum.exr: continuous, the derivative ~0.
    c.append(config("translate_plane_under_envmap",
                    scene(64, 2, {"plane": GREY}, [quad("plane", [-3, -3, 0], [6, 0, 0], [0, 6, 0], "plane")],
                          [{"name": "light", "type": "envmap", "filename": MUSEUM}]),
                    [("shapes.plane.corner[2]", 1.0)], res=64, mean=0.03, max_=0.2, needs=[MUSEUM]))
    # TranslateDiskEmitterOnGrayConfig: a disk lamp (radius 1.5, rotated 60 degrees about y) seen
    # at a 120 degree field of view over a 0.2 sky; emission only (Mitsuba's max_depth 1).
    disk = scene(64, 1, {"disk": {"type": "diffuse", "reflectance": 0.5, "emission": [2, 2, 2]}},
                 [{"name": "disk", "type": "disk", "material": "disk",
                   "transform": {"scale": 1.5, "rotate_y": 60, "translate": [0.2, 0, -1]}}],
                 [{"name": "light", "type": "environment", "radiance": 0.2}])
    disk["camera"].update({"origin": [0, 0, 1], "target": [0, 0, 0], "fov_y": 120})
    c.append(config("translate_disk_emitter_on_gray", disk, [("shapes.disk.translate[0]", 1.0)], res=64, mean=0.03, max_=1.0,
                    mean_bwd=0.2, ref_spp=120000))
    # TranslatePlaneAndAreaEmitterConfig: a 0.5 x 0.5 plane tilted toward a 1.5 x 1.5 lamp below
    # it, both moving toward the camera (at the origin, looking down -z).
    lamp1 = {"type": "diffuse", "reflectance": 0.5, "emission": [1, 1, 1]}
    both = scene(128, 2, {"plane": GREY, "light": lamp1},
                 [quad("plane", [-0.25, -0.1768, -1.1768], [0.5, 0, 0], [0, 0.3536, 0.3536], "plane"),
                  quad("light", [-0.75, -2, -1.75], [0, 0, 1.5], [1.5, 0, 0], "light")])
    both["camera"].update({"origin": [0, 0, 0], "target": [0, 0, -1]})
    c.append(config("translate_plane_and_area_emitter", both, [("shapes.plane.corner[2]", 1.0), ("shapes.light.corner[2]", 1.0)],
                    spp=4096, mean=0.01, max_=0.1, mean_bwd=0.25, ref_spp=96000))
    # TranslateSelfShadowingRightAngleConfig: a wall standing on a floor (an L), a lamp behind the
    # wall and above it casting the wall's shadow onto the floor; both move toward the camera.
    right = scene(128, 2, {"wall": {"type": "diffuse", "reflectance": [0.1, 0.1, 0.4]},
                           "floor": {"type": "diffuse", "reflectance": [0.4, 0.1, 0.1]}, "light": lamp1},
                  [quad("wall", [-1, -1, -1], [2, 0, 0], [0, 2, 0], "wall"), quad("floor", [-1, -1, -2], [0, 0, 2], [2, 0, 0], "floor"),
                   quad("light", [-2, 7.5, -4], [4, 0, 0], [0, 1, 0], "light")])
    right["camera"].update({"origin": [0, 0, 1], "target": [0, 0, -1], "fov_y": 87})
    c.append(config("translate_self_shadowing_right_angle", right,
                    [("shapes.wall.corner[2]", 1.0), ("shapes.floor.corner[2]", 1.0)], spp=4096, mean=0.01, max_=0.05,
                    mean_bwd=0.25))
    # TranslateTexturedAreaEmitterConfig: a textured emitter facing the camera, tilted, moving in z
    # (its border black: continuous).
    tex = {"gradient": {"type": "bitmap", "filename": GRADIENT}}
    emitter = scene(64, 2, {"light": {"type": "diffuse", "reflectance": 0.5, "emission": "gradient"}},
                    [rect("plane", "light", transform(("rotate", [1, 0, 0], 45), ("rotate", [0, 0, 1], -90)))])
    emitter["textures"] = tex
    emitter["camera"].update({"origin": [0, 0.2, 4], "target": [0, 0.2, 0], "fov_y": 40})
    c.append(config("translate_textured_area_emitter", emitter, [("shapes.plane.corner[2]", 1.0)], res=64, mean=0.003,
                    max_=0.4, mean_bwd=0.25))
    # TranslatePlaneUnderTexturedAreaEmitterConfig and ...IlluminatingPlaneConfig: a grey plane lit
    # by a large textured lamp below it; the plane moves, then the lamp.
    for name, moving in (("translate_plane_under_textured_area_emitter", "plane"),
                         ("translate_textured_area_emitter_illuminating_plane", "light")):
        under = scene(64, 2, {"plane": GREY, "light": {"type": "diffuse", "reflectance": 0.5, "emission": "gradient"}},
                      [rect("plane", "plane", transform(("rotate", [1, 0, 0], 45), ("rotate", [0, 0, 1], 90))),
                       rect("light", "light", transform(("translate", [0, -1.5, 0]), ("rotate", [0, 1, 0], -90),
                                                        ("rotate", [1, 0, 0], -90), ("scale", 4.0)))])
        under["textures"] = {"gradient": {"type": "bitmap", "filename": GRADIENT, "wrap_mode": "clamp"}}
        under["camera"].update({"origin": [0, 0.1, 4], "target": [0, 0.1, 0], "fov_y": 18})
        c.append(config(name, under, [(f"shapes.{moving}.corner[2]", 1.0)], res=64, mean=0.025, max_=0.4, mean_bwd=0.25))
    # TranslatePlaneUnderProjectorConfig: a 6 x 6 diffuse plane moving toward a projector (and the
    # camera) that casts the gradient on it (its border black: continuous).
    proj = scene(64, 2, {"plane": GREY}, [quad("plane", [-3, -3, 0], [6, 0, 0], [0, 6, 0], "plane")],
                 [{"name": "light", "type": "projector", "position": [0, 0, 3], "target": [0, 0, 0], "up": [0, 1, 0],
                   "irradiance": "gradient"}])
    proj["textures"] = {"gradient": {"type": "bitmap", "filename": GRADIENT}}
    c.append(config("translate_plane_under_projector", proj, [("shapes.plane.corner[2]", 1.0)], res=64, mean=0.03, max_=0.2))
    # TranslateGlassPlaneLensConfig: three rough glass planes (beckmann 0.8, eta 1.001 / 1.1) before
    # a textured lamp; the middle one moves in z (max_depth 4).
    glass = {"type": "roughdielectric", "distribution": "beckmann", "alpha": 0.8, "int_ior": 1.001, "ext_ior": 1.1}
    lens = scene(32, 4, {"glass": glass, "light": {"type": "diffuse", "reflectance": 0.5, "emission": "gradient"}},
                 [rect("glass1", "glass", transform(("translate", [0, 0, 1]), ("scale", 4.0))),
                  rect("shape", "glass", transform(("scale", 4.0))),
                  rect("glass3", "glass", transform(("translate", [0, 0, -1]), ("scale", 4.0))),
                  rect("light", "light", transform(("translate", [0, 0, -2]), ("scale", 0.7)))])
    lens["textures"] = {"gradient": {"type": "bitmap", "filename": GRADIENT, "wrap_mode": "clamp"}}
    lens["camera"].update({"origin": [0, 0, 2], "target": [0, 0, 0]})
    c.append(config("translate_glass_plane_lens", lens, [("shapes.shape.corner[2]", 1.0)], res=32, spp=8192, mean=0.03,
                    max_=0.3))
    # RotateShadingNormalsPlaneConfig: the normals of Mitsuba's rectangle.obj (smooth: (0, 0, 1) at its
    # four vertices) turned about +y by theta degrees, under a lamp at its side (max_depth 2).
    lamp3 = {"type": "diffuse", "reflectance": 0.5, "emission": [3, 3, 3]}
    normals = scene(128, 2, {"plane": GREY, "light": lamp3},
                    [{"name": "plane", "type": "mesh", "file": RECTANGLE_OBJ, "material": "plane"},
                     rect("light", "light", transform(("translate", [1.25, 0, 1]), ("rotate", [0, 1, 0], -90)))])
    # d/dtheta of R_y(theta) n at 0, per degree: (n_z, 0, -n_x) pi / 180 = (1, 0, 0) pi / 180. The
    # reference steps 0.1 degree (Mitsuba's 0.001 leaves single samples' flips across the horizon
    # in a few pixels: max 0.49 against dray's derivative; the image is smooth in the angle).
    c.append(config("rotate_shading_normals_plane", normals,
                    [(f"shapes.plane.normals[{i},0]", math.pi / 180.0) for i in range(4)], mean=0.02, max_=0.3,
                    mean_bwd=0.00002, needs=[RECTANGLE_OBJ], fd_eps=0.1))
    return c


def missing(cfg):
    """What a config needs and this machine lacks (empty: it can run)."""
    return [f for f in cfg["needs"] if not os.path.exists(f)]


def ref_path(cfg):
    return os.path.join(ROOT, "refs", cfg["name"] + ".exr")


def component(index):
    """"3]" or "2,0]" (what follows NAME[) as a numpy index."""
    return tuple(int(i) for i in index.rstrip("]").split(","))


def shift(scene, wrt, delta):
    """Moves theta by delta: each dray parameter of `wrt` by its coefficient times delta."""
    import numpy as np
    values = scene.params()
    changed = {}
    for name, coef in wrt:
        base, _, index = name.partition("[")
        v = changed.get(base, np.array(values[base], dtype=np.float32, copy=True))
        if index:
            v[component(index)] += np.float32(coef * delta)
        else:
            v = v + np.float32(coef * delta)
        changed[base] = v
    scene.update(changed)
