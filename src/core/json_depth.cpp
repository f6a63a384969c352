// parse_json_nested_at_most: nlohmann's parser with a callback that refuses deep nesting early.
#include "core/json_depth.h"

#include "core/error.h"

namespace ec {

nlohmann::json parse_json_nested_at_most(std::string_view text, std::string_view source) {
  // The callback sees each value's depth as the parser opens it, before the nesting is built.
  auto limit = [source](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start ||
         event == nlohmann::json::parse_event_t::array_start) &&
        depth >= kMaxJsonNesting) {
      fail("{}: nested deeper than the limit of {} levels", source, kMaxJsonNesting);
    }
    return true;
  };
  return nlohmann::json::parse(text, limit);
}

}  // namespace ec
