"""dray.torch.render as a torch.autograd.Function: gradients reach every tensor given and agree
with central differences of the same loss with the same random numbers. Skipped without torch."""
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import dray  # noqa: E402
import dray.torch  # noqa: E402

SCENES = os.path.join(os.path.dirname(__file__), "..", "..", "scenes")


def test_gradients_flow_to_every_tensor_and_match_differences():
    scene = dray.load(os.path.join(SCENES, "cbox-fit.json"), **{"camera.width": 32, "camera.height": 32, "render.spp": 8})
    start = scene.params()
    weights = torch.from_numpy(np.random.default_rng(4).random((32, 32, 3), dtype=np.float32))

    def loss_of(values, seed=3):
        image = dray.torch.render(scene, values, seed=seed, seed_grad=seed)
        return torch.sum(weights * image ** 2) / image.numel()

    params = {"materials.white.reflectance": torch.tensor(start["materials.white.reflectance"], requires_grad=True),
              "materials.lamp.emission": torch.tensor(start["materials.lamp.emission"], requires_grad=True)}
    loss_of(params).backward()
    for name, k, h in [("materials.white.reflectance", 1, 1e-3), ("materials.lamp.emission", 0, 1e-2)]:
        g = params[name].grad
        assert g is not None and g.shape == params[name].shape
        with torch.no_grad():
            plus = {n: t.detach().clone() for n, t in params.items()}
            minus = {n: t.detach().clone() for n, t in params.items()}
            plus[name][k] += h
            minus[name][k] -= h
            fd = (loss_of(plus).item() - loss_of(minus).item()) / (plus[name][k].item() - minus[name][k].item())
        assert g[k].item() == pytest.approx(fd, rel=1e-2), name
