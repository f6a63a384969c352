// Bounded whole-file reads for the model's JSON files.
#include "model/limits.h"

#include "core/error.h"
#include "core/file_io.h"

namespace ec::model {

std::string read_file_within(const std::filesystem::path& path, uint64_t limit,
                             std::string_view what) {
  return read_file_at_most(path, static_cast<std::size_t>(limit), what);
}

}  // namespace ec::model
