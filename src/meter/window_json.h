// A WindowResult as report JSON: absent figures are left out, never written as zero.
#pragma once

#include <nlohmann/json.hpp>

#include "meter/meter.h"

namespace ec::meter {

nlohmann::json to_json(const WindowResult& window);

}  // namespace ec::meter
