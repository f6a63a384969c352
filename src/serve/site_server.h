// An HTTP server for the report site (from memory) and the /v1 API, with limits on what a request
// may be: payload, URI and header length (cpp-httplib's 8 KiB), deadlines and a connection cap
// (serve/connection_guard.h), GET/HEAD (POST on the API's estimate and optimize).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "analysis/fit.h"
#include "api/api.h"
#include "serve/connection_guard.h"
#include "site/site_builder.h"

namespace httplib {
class Server;
}

namespace ec::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                  // 0: any free port (bind() says which)
  size_t max_payload_bytes = 4096;  // the API's JSON bodies are small; larger is refused with 413
  api::ApiOptions api;              // compat=original for every request (`serve --compat`)
  ConnectionLimits connections;     // what slow, idle or many clients may hold
};

class SiteServer {
 public:
  SiteServer(site::SiteFiles files, std::optional<analysis::CurveSet> curves, ServeOptions options);
  ~SiteServer();
  SiteServer(const SiteServer&) = delete;
  SiteServer& operator=(const SiteServer&) = delete;

  // Binds the socket; returns the port. Throws ec::Error naming host:port when it cannot.
  int bind();
  // Serves until stop(); call after bind().
  void listen();
  void stop();

 private:
  void routes();

  site::SiteFiles files_;
  std::optional<analysis::CurveSet> curves_;
  ServeOptions options_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace ec::serve
