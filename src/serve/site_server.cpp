// The serve routes: the API (serve/api_routes.h), the site files; JSON errors for every refusal.
#include "serve/site_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include "api/api.h"
#include "core/error.h"
#include "serve/api_routes.h"

namespace ec::serve {
namespace {

std::string content_type(const std::string& path) {
  auto ends = [&](std::string_view ext) { return path.ends_with(ext); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".json")) return "application/json";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".txt") || ends(".md")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

void send_json(httplib::Response& res, const api::ApiResponse& r) {
  res.status = r.status;
  res.set_content(r.body.dump(2) + "\n", "application/json");
}

constexpr size_t kMaxHeaders = 100;

const char* reason(int status) {
  switch (status) {
    case 400:
      return "bad request";
    case 404:
      return "not found";
    case 405:
      return "method not allowed: GET and HEAD (and POST on the API)";
    case 413:
      return "request body too large";
    case 414:
      return "request URI too long";
    case 431:
      return "request headers too large";
    default:
      return status >= 500 ? "server error" : "request refused";
  }
}

}  // namespace

SiteServer::SiteServer(site::SiteFiles files, std::optional<analysis::CurveSet> curves,
                       ServeOptions options)
    : files_(std::move(files)),
      curves_(std::move(curves)),
      options_(std::move(options)),
      server_(std::make_unique<GuardedServer>(options_.connections)) {
  routes();
}

SiteServer::~SiteServer() {
  stop();
}

void SiteServer::routes() {
  httplib::Server& s = *server_;
  s.set_payload_max_length(options_.max_payload_bytes);
  // A declared body over the limit is refused before any of it is read (httplib would first read
  // and discard it, waiting for bytes a client may never send).
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // httplib keeps every header line it is sent; no client of ours needs more than a few dozen.
    if (req.headers.size() > kMaxHeaders) {
      send_json(res, api::api_error(431, fmt::format("{}: {} header lines, at most {}", reason(431),
                                                     req.headers.size(), kMaxHeaders)));
      res.set_header("Connection", "close");
      close_connection_after_response();
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::string length = req.get_header_value("Content-Length");
    if (length.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const bool digits =
        length.size() <= 19 && length.find_first_not_of("0123456789") == length.npos;
    if (digits && std::stoull(length) <= options_.max_payload_bytes)
      return httplib::Server::HandlerResponse::Unhandled;
    send_json(res, api::api_error(digits ? 413 : 400, digits ? reason(413) : "bad Content-Length"));
    res.set_header("Connection", "close");
    close_connection_after_response();
    return httplib::Server::HandlerResponse::Handled;
  });

  add_api_routes(s, curves_, options_.api);
  // A browser asks for HTML and gets the site; an API client gets the endpoint list, as from the
  // original service.
  s.Get("/", [this](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Accept").find("text/html") == std::string::npos) {
      answer_api(curves_, options_.api, req, res);
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_content(files_.at("index.html"), "text/html; charset=utf-8");
  });
  s.Get("/.*", [this](const httplib::Request& req, httplib::Response& res) {
    std::string path = req.path.substr(1);
    if (path.empty() || path.ends_with("/")) path += "index.html";
    auto it = files_.find(path);
    if (it == files_.end()) {
      send_json(res, api::api_error(404, "not found"));
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_content(it->second, content_type(path));
  });
  // Any other method: refused before the body matters.
  auto refuse = [](const httplib::Request&, httplib::Response& res) {
    send_json(res, api::api_error(405, reason(405)));
  };
  s.Post("/.*", refuse);  // POST is the API's only (/v1/estimate, /v1/optimize)
  s.Put("/.*", refuse);
  s.Delete("/.*", refuse);
  s.Patch("/.*", refuse);

  s.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
  });
  // Refusals made by httplib itself (413, 414, 400 for bad request lines) get a JSON body too.
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) send_json(res, api::api_error(res.status, reason(res.status)));
  });
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        send_json(res, api::api_error(500, what));
      });
}

int SiteServer::bind() {
  int port = options_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.host);
  } else if (!server_->bind_to_port(options_.host, port)) {
    port = -1;
  }
  if (port < 0)
    fail("cannot listen on {}:{} (in use, or not an address of this machine)", options_.host,
         options_.port);
  return port;
}

void SiteServer::listen() {
  server_->listen_after_bind();
}

void SiteServer::stop() {
  if (server_ && server_->is_running()) server_->stop();
}

}  // namespace ec::serve
