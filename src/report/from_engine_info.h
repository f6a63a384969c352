// Copies an engine's self-description into the report's engine block (header-only: ec_report does
// not link the engine; only the bench, which has both, includes this).
#pragma once

#include "engine/engine.h"
#include "report/run_record.h"

namespace ec::report {

inline EngineRecord from_engine_info(const engine::EngineInfo& info) {
  EngineRecord record;
  record.backend = info.backend;
  record.precision = info.precision;
  record.weight_format = info.weight_format;
  record.kernel_variant = info.kernel_variant;
  record.kernel_variant_choice = info.kernel_variant_choice;
  record.tuning_table = info.tuning_table;
  record.tuning_table_sha256 = info.tuning_table_sha256;
  record.compute_dtype = info.compute_dtype;
  record.cuda_graph = info.cuda_graph;
  record.weight_bytes = info.weight_bytes;
  record.max_context = info.max_context;
  record.threads = info.threads;
  record.device_name = info.device_name;
  return record;
}

}  // namespace ec::report
