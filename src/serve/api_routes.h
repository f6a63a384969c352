// The API's routes on the HTTP server: every /v1 path, /openapi.json and CORS preflights.
#pragma once

#include <optional>

#include "analysis/fit.h"
#include "api/api.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace ec::serve {

// One request answered by the API, with the CORS headers.
void answer_api(const std::optional<analysis::CurveSet>& curves, const api::ApiOptions& options,
                const httplib::Request& req, httplib::Response& res);

// Registers /v1/*, /openapi.json and OPTIONS; `curves` must outlive the server. GET / is the
// site's (it answers an API client with the endpoint list through answer_api).
void add_api_routes(httplib::Server& server, const std::optional<analysis::CurveSet>& curves,
                    api::ApiOptions options);

}  // namespace ec::serve
