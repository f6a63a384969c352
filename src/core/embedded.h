// Files compiled into the binary (see cmake/EcEmbed.cmake): the default eval text and the report schema.
#pragma once

#include <string_view>

namespace ec::embedded {

// data/eval_text.txt: the original EcoCompute quality-probe corpus (see data/eval_text.PROVENANCE.md).
std::string_view eval_text();
// schema/energy.schema.json: the report contract (linked into ec_report).
std::string_view energy_schema();

}  // namespace ec::embedded
