#pragma once
// What a sensor that measures over the scene is given by it (sensors/sensor_surface.h): the ball
// around the scene's box and the primitives of the shape it is attached to. Scene::build_geometry
// places them; a sensor added to a built scene (add_sensor: a job's view, Python) is placed at once.
namespace dray {

struct Scene;

// Places every such sensor of `scene` (its BVH built). Throws LoadError for a meter whose shape
// is missing or has no area.
void place_sensors(Scene& scene);

}  // namespace dray
