// /openapi.json: the OpenAPI 3 description of the API (data/api/openapi.json, compiled in).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ec::api {

// The document, with `servers` naming `origin` (scheme://host:port) when one is known.
nlohmann::json openapi_document(const std::string& origin);

}  // namespace ec::api
