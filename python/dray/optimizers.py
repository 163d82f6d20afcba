"""``dray.optimizers.Adam``: Adam over scene parameters with numpy values, stepped by
``dray.backward``'s gradients (``opt.step(grads)``); the same optimizer as ``dray.ad.Adam``
(python/dray/ad.py), whose values are torch leaf tensors when torch is present.

    params = scene.params()
    opt = dray.optimizers.Adam(lr=0.02, params=params, keys=["materials.white.reflectance"])
    for i in range(100):
        params.update(opt)
        image = dray.render(scene, seed=2 * i)
        opt.step(dray.backward(scene, 2 * (image - target) / image.size, wrt=list(opt), seed=2 * i + 1))
"""
from . import ad


class Adam(ad.Adam):
    """dray.ad.Adam with numpy values (torch=False): see its documentation."""

    def __init__(self, lr, params=None, keys=(), beta_1=0.9, beta_2=0.999, epsilon=1e-8, uniform=False,
                 mask_updates=False, comm=None):
        super().__init__(lr, params, keys, beta_1, beta_2, epsilon, uniform, mask_updates, torch=False, comm=comm)


class SGD(ad.SGD):
    """dray.ad.SGD with numpy values (torch=False): see its documentation."""

    def __init__(self, lr, params=None, keys=(), momentum=0.0, nesterov=False, mask_updates=False, comm=None):
        super().__init__(lr, params, keys, momentum, nesterov, mask_updates, torch=False, comm=comm)
