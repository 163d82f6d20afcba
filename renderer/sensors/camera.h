#pragma once
// The sensor interface: Mitsuba 3's src/sensors as a closed set (one header each) in a
// std::variant, dispatched without virtual calls. Every sensor looks from `origin` at `target`
// (its frame, parameters) onto a film, and provides (sensor_frame.h's types)
//   extent(P, frame)         its film's half extent and lens, in T;
//   ray(frame, sample)       the ray of a film sample, in T;
//   project(frame, p)        where a world point lands on the film, in T;
//   seen_from(frame)         where edges are seen from (a point, or a direction: w = 0);
//   eye(frame, lens)         the point a ray of the sky leaves from, if it has one;
//   link(frame, p, lens)     a point's link to the camera (light tracing);
//   motion(frame, p, dp, z)  a point's film motion (the boundary term);
//   kAperture                whether a film sample draws an aperture point;
//   kPosition                whether it draws a surface point's two numbers (FilmSample::position);
//   kLightPaths              whether light paths may reach it (ptracer refuses it otherwise);
//   kPinholeDifferentials    whether ray differentials share the ray's origin;
//   kEdges                   how moving edges meet its film;
//   kFieldOfView             whether it takes Mitsuba's fov, fov_axis, focal_length and principal point;
// a sensor that measures over the scene (distant, irradiancemeter) holds a SensorSurface the
// scene places (attach_surface), and one whose rays carry a weight states it (kWeight);
// and, for loading, kPlugins (Mitsuba's names), static read(SensorProps&) and scalars() (its
// parameters by key). The variant's list below is the registry (core/registry.h): adding a sensor
// touches its header, this list and its test.
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <variant>

#include <glm/vec2.hpp>

#include "renderer/core/param_table.h"
#include "renderer/core/frame.h"
#include "renderer/core/ray.h"
#include "renderer/sensors/distant.h"
#include "renderer/sensors/irradiancemeter.h"
#include "renderer/sensors/orthographic.h"
#include "renderer/sensors/perspective.h"
#include "renderer/sensors/radiancemeter.h"
#include "renderer/sensors/thinlens.h"

namespace dray {

using SensorModel =
    std::variant<PerspectiveSensor, ThinLensSensor, OrthographicSensor, RadianceMeterSensor, DistantSensor, IrradianceMeterSensor>;

// A sensor: its plugin, its frame's parameters and its film.
struct Camera {
  SensorModel model;
  Slot origin = kNoSlot, target = kNoSlot, up = kNoSlot;
  // Mitsuba's principal_point_offset_x/y: the principal point's shift from the film's centre in
  // fractions of the film (not differentiable, as Mitsuba's), and the clip distances along the
  // viewing direction: rays start at near_clip and end at far_clip.
  float offset_x = 0.f, offset_y = 0.f;
  float near_clip = 0.f, far_clip = INFINITY;
  int width = 320, height = 240;
};

// The plugin's name (Mitsuba's).
inline std::string_view sensor_type(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.kPlugins[0]; }, m);
}
inline bool draws_aperture(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.kAperture; }, m);
}
inline bool pinhole_differentials(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.kPinholeDifferentials; }, m);
}
inline bool draws_position(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.kPosition; }, m);
}
inline bool reached_by_light_paths(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.kLightPaths; }, m);
}
// The weight of its rays (an irradiance meter's π; 1 for a camera).
inline float sensor_weight(const SensorModel& m) {
  return std::visit([](const auto& s) {
    if constexpr (requires { s.kWeight; }) return s.kWeight;
    else return 1.f;
  }, m);
}
// The name of the shape it measures over (an irradiance meter's), or empty.
inline std::string_view measured_shape(const SensorModel& m) {
  return std::visit([](const auto& s) -> std::string_view {
    if constexpr (requires { s.shape; }) return s.shape;
    else return {};
  }, m);
}
// Gives a sensor that measures over the scene its share (Scene::build_geometry).
inline void attach_surface(SensorModel& m, const SensorSurfaceRef& surface) {
  std::visit([&](auto& s) {
    if constexpr (requires { s.surface; }) s.surface = surface;
  }, m);
}
inline bool measures_scene(const SensorModel& m) {
  return std::visit([](const auto& s) { return requires { s.surface; }; }, m);
}
inline SensorEdges sensor_edges(const SensorModel& m) {
  return std::visit([](const auto& s) { return s.kEdges; }, m);
}

// The camera's parameter blocks (first slot, entries); absent ones are kNoSlot.
inline std::array<std::pair<Slot, uint32_t>, 6> camera_blocks(const Camera& c) {
  std::array<std::pair<Slot, uint32_t>, 6> out{{{c.origin, 3}, {c.target, 3}, {c.up, 3}, {kNoSlot, 1}, {kNoSlot, 1}, {kNoSlot, 1}}};
  const SensorScalars scalars = std::visit([](const auto& s) { return s.scalars(); }, c.model);
  for (size_t i = 0; i < scalars.size(); ++i) out[3 + i].first = scalars[i].slot;
  return out;
}
// Whether `slot` is one of the camera's parameters.
inline bool is_camera_slot(const Camera& c, Slot slot) {
  for (const auto& [first, n] : camera_blocks(c))
    if (first != kNoSlot && slot >= first && slot < first + n) return true;
  return false;
}
// Whether the view P seeds any of the camera's parameters.
template <class P>
bool camera_active(const Camera& c, const P& view) {
  for (const auto& [first, n] : camera_blocks(c))
    if (view.active(first, n)) return true;
  return false;
}

// The camera's frame in T and its plugin: it depends on parameters only, so it is built once and
// shared by many samples.
template <class T>
struct CameraFrame : SensorFrame<T> {
  SensorModel model;
};

template <class T>
CameraFrame<T> camera_frame_constants(const Camera& cam) {
  CameraFrame<T> f;
  f.model = cam.model;
  f.width = float(cam.width);
  f.height = float(cam.height);
  f.offset_x = cam.offset_x;
  f.offset_y = cam.offset_y;
  f.near_clip = cam.near_clip;
  f.far_clip = cam.far_clip;
  return f;
}

template <class T>
CameraFrame<T> camera_frame_from_params(const Camera& cam, const ParamView<T>& P) {
  CameraFrame<T> f = camera_frame_constants<T>(cam);
  f.origin = P.vec3(cam.origin);
  f.forward = normalize(P.vec3(cam.target) - f.origin);
  f.right = normalize(cross(f.forward, P.vec3(cam.up)));
  f.up = cross(f.right, f.forward);
  std::visit([&](const auto& s) { s.extent(P, f); }, cam.model);
  return f;
}

// The frame in T: lifted once per pass when the view has it (a reverse pass), else derived from
// the parameters.
template <class T>
CameraFrame<T> camera_frame(const Camera& cam, const ParamView<T>& P) {
  if constexpr (ad::is_differentiable_v<T>)
    if (const LiftedBlock* lifted = P.lifted(cam.origin)) {
      CameraFrame<T> f = camera_frame_constants<T>(cam);
      for (int k = 0; k < kCameraEntries; ++k) camera_entry<T>(f, k) = P.lifted_input(*lifted, k);
      return f;
    }
  return camera_frame_from_params(cam, P);
}

// The ray through film sample s, starting at the near clip plane and ending at the far one.
template <class T>
RayT<T> camera_ray(const CameraFrame<T>& f, const FilmSample& s) {
  return std::visit([&](const auto& m) { return m.ray(f, s); }, f.model);
}
// The ray through film position (px, py) and the lens's centre.
template <class T>
RayT<T> camera_ray(const CameraFrame<T>& f, float px, float py) {
  return camera_ray(f, FilmSample{px, py});
}
template <class T>
RayT<T> camera_ray(const Camera& cam, const ParamView<T>& P, float px, float py) {
  return camera_ray(camera_frame(cam, P), px, py);
}

// Where world point p lands on the film (the inverse of camera_ray through the lens's centre).
template <class T>
FilmPoint<T> project(const CameraFrame<T>& f, const Vec3<T>& p) {
  return std::visit([&](const auto& m) { return m.project(f, p); }, f.model);
}
inline glm::vec4 seen_from_camera(const CameraFrame<float>& f) {
  return std::visit([&](const auto& m) { return m.seen_from(f); }, f.model);
}
inline std::optional<glm::vec3> camera_eye(const CameraFrame<float>& f, glm::vec2 lens) {
  return std::visit([&](const auto& m) { return m.eye(f, lens); }, f.model);
}
inline bool camera_link(const CameraFrame<float>& f, const glm::vec3& p, glm::vec2 lens, CameraLink& out) {
  return std::visit([&](const auto& m) { return m.link(f, p, lens, out); }, f.model);
}
inline glm::vec2 camera_film_motion(const CameraFrame<float>& f, const glm::vec3& p, const glm::vec3& dp, float depth) {
  return std::visit([&](const auto& m) { return m.motion(f, p, dp, depth); }, f.model);
}

}  // namespace dray
