// HTTP ↔ api::ApiRequest: the request's method, path, query, body and origin in; the status, the
// JSON body and the original's CORS headers out.
#include "serve/api_routes.h"

#include <httplib.h>

namespace ec::serve {

void answer_api(const std::optional<analysis::CurveSet>& curves, const api::ApiOptions& options,
                const httplib::Request& req, httplib::Response& res) {
  api::ApiRequest r;
  r.method = req.method;
  r.path = req.path;
  r.query = api::QueryParams(req.params.begin(), req.params.end());
  r.body = req.body;
  if (req.has_header("Host")) r.origin = "http://" + req.get_header_value("Host");
  const api::ApiResponse out = api::api_request(curves, r, options);
  for (const auto& [k, v] : api::cors_headers()) res.set_header(k, v);
  res.status = out.status;
  if (!out.body.is_null()) {
    res.set_content(out.body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                    "application/json; charset=utf-8");
  }
}

void add_api_routes(httplib::Server& s, const std::optional<analysis::CurveSet>& curves,
                    api::ApiOptions options) {
  auto handler = [&curves, options](const httplib::Request& req, httplib::Response& res) {
    answer_api(curves, options, req, res);
  };
  s.Get("/v1/.*", handler);
  s.Post("/v1/.*", handler);
  s.Get("/openapi.json", handler);
  s.Options("/.*", handler);
}

}  // namespace ec::serve
