#pragma once
// What a phase function reads when a loader builds it: Props (core/props.h), its parameters named
// media.NAME.phase.KEY, and the phase functions nested in one.
#include <string>

#include "renderer/core/props.h"

namespace dray {

struct PhaseBox;

class PhaseProps : public Props {
 public:
  // The index-th of the phase functions under `key`, its parameters named under `name`.
  virtual PhaseBox nested(const std::string& key, int index, const std::string& name) = 0;
};

}  // namespace dray
