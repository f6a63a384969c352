// The OpenAPI document is data (data/api/openapi.json) so it reads as the API's contract; only the
// server address is filled in per request.
#include "api/openapi.h"

#include "core/embedded.h"

namespace ec::api {

nlohmann::json openapi_document(const std::string& origin) {
  static const nlohmann::json document = nlohmann::json::parse(embedded::openapi_json());
  nlohmann::json out = document;
  if (!origin.empty()) out["servers"] = {{{"url", origin}}};
  return out;
}

}  // namespace ec::api
