#pragma once
// The Mitsuba shape types a shape plugin reads (its kMitsuba list; shape.h's mitsuba_shape finds
// one by name): the scene document's type it becomes, how Mitsuba's keys and to_world place it
// (io/mitsuba/shapes.cpp converts each placing), and whether it takes flip_normals.
#include <string_view>

namespace dray {

enum class MitsubaPlacing {
  mesh_file,   // obj, ply, serialized: its file, to_world its matrix
  unit_mesh,   // disk, cube: dray's tessellation of Mitsuba's unit shape, to_world its matrix
  axis,        // cylinder: p0, p1 and radius folded into the matrix
  ball,        // sphere: center and radius, to_world a rotation, uniform scale and translation
  quad,        // rectangle: Mitsuba's [-1, 1]² at z = 0 under to_world
  grid_file,   // sdfgrid: its .vol file, to_world its matrix; never an emitter
  curve_file,  // linearcurve, bsplinecurve: its file; to_world moves the control points, not the radii
};

struct MitsubaShape {
  std::string_view type;       // Mitsuba's
  std::string_view dray_type;  // the scene document's (one of the plugin's kPlugins)
  MitsubaPlacing placing;
  bool flips = false;          // takes flip_normals
};

}  // namespace dray
