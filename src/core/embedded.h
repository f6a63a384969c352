// Files compiled into the binary (see cmake/EcEmbed.cmake): the default eval text and the report
// schema.
#pragma once

#include <span>
#include <string_view>

namespace ec::embedded {

// data/eval_text.txt: the original EcoCompute quality-probe corpus (see
// data/eval_text.PROVENANCE.md).
std::string_view eval_text();
// schema/energy.schema.json: the report contract (linked into ec_report).
std::string_view energy_schema();

// data/curves/published-curves.json: our fit of the original's published measured.csv (linked into
// ec_analysis); the curves `estimate` and `check-regression` use when given none.
std::string_view published_curves();

// data/api/openapi.json: the API's OpenAPI 3 description (linked into ec_api).
std::string_view openapi_json();

// The site's report grader: src/wasm/report_grader.cpp and the C++ it calls, compiled to
// WebAssembly inside one JavaScript file (cmake/EcReportGrader.cmake; linked into ec_site).
std::string_view report_grader_js();

// One file of an embedded folder: its path relative to the folder and its bytes.
struct EmbeddedFile {
  std::string_view path;
  std::string_view bytes;
};
// web/: the report site's pages, scripts and styles (linked into ec_site), sorted by path.
std::span<const EmbeddedFile> site_assets();
// data/tuning/: the CUDA engine's tuning tables (linked into ec_engine), sorted by path.
std::span<const EmbeddedFile> tuning_tables();

}  // namespace ec::embedded
