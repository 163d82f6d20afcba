"""Mitsuba's ``scene.sensors()`` and ``sensor.film().bitmap()``: a scene's sensors as objects whose
film holds the last image rendered through them (every channel, AOVs included, named as Mitsuba
names them), and ``sensor.world_transform()``. ``scene.sensors`` without the call is still the list
of the sensors' names (dray's)."""
from .bitmap import Bitmap


class SensorList(list):
    """The scene's sensors' names; called (Mitsuba's ``scene.sensors()``), the sensors."""

    def __init__(self, scene, names):
        super().__init__(names)
        self._scene = scene

    def __call__(self):
        return [SceneSensor(self._scene, i, name) for i, name in enumerate(self)]


class Film:
    """A sensor's film: ``bitmap()`` is the last image rendered through it, as a dray.Bitmap."""

    def __init__(self, scene, index):
        self._scene, self._index = scene, index

    def bitmap(self):
        films = getattr(self._scene, "_films", {})
        if self._index not in films:
            raise ValueError("sensor %d has rendered nothing yet: render(scene, sensor=…) first" % self._index)
        image, names = films[self._index]
        return Bitmap(image, channel_names=names) if names != ["R", "G", "B"] else Bitmap(image)


class SceneSensor:
    """One of a scene's sensors (Mitsuba's Sensor): its name, film and world transform."""

    def __init__(self, scene, index, name):
        self._scene, self.index, self.name = scene, index, name

    def film(self):
        return Film(self._scene, self.index)

    def id(self):
        return self.name

    def world_transform(self):
        """The sensor's to_world (a ScalarTransform4f): the first sensor's, as traverse gives it."""
        from .transforms import ScalarTransform4f
        if self.index != 0:
            raise ValueError("world_transform(): dray gives the first sensor's (sensor.to_world); read another's "
                             "through its parameters sensors.%s.origin, target and up" % self.name)
        return ScalarTransform4f(self._scene.params()._camera_value("camera.to_world"))

    def __repr__(self):
        return "Sensor(%s)" % self.name


def keep(scene, sensor, image, integrator):
    """Remembers `image` as the film of the sensor it was rendered through."""
    from . import _dray
    if not hasattr(scene, "_films"):
        scene._films = {}
    names = list(scene.sensors)
    index = 0 if sensor is None else names.index(sensor) if sensor in names else int(sensor)
    scene._films[index] = (image, list(_dray.channel_names(scene, integrator)))
