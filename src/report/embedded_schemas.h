// The original EcoCompute report schema 1.1, compiled into ec_report (see cmake: ec_embed).
#pragma once

#include <string_view>

namespace ec::embedded {

// schema/original-energy-1.1.schema.json (see schema/original-energy-1.1.PROVENANCE.md).
std::string_view original_schema();

}  // namespace ec::embedded
