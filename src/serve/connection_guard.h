// An httplib server whose connections cannot hold it: deadlines per request, a cap on connections.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstddef>

namespace ec::serve {

struct ConnectionLimits {
  // Connections served at once, each on its own thread; a connection accepted beyond this many
  // waiting in the queue is answered 503 at once and closed.
  size_t workers = 128;
  size_t max_waiting = 256;
  // A connection waits at most idle_s for the first byte of its next request (the first included);
  // from that byte, the request (head and body) must arrive and its response be written within
  // request_s, however the client spaces its bytes.
  double idle_s = 2.0;
  double request_s = 5.0;
  size_t keep_alive_requests = 100;
};

// Called from a handler: the connection closes once this response is written (a refused body
// that was never read must not be parsed as the next request).
void close_connection_after_response();

// Why a thread per connection with deadlines holds: a slow or idle client costs one blocked
// thread for at most idle_s + request_s, and the other workers go on answering; only
// `workers` such clients at once make the others wait, and never longer than that.
class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);
  const ConnectionLimits& limits() const { return limits_; }

 private:
  // Overrides httplib's per-connection loop (its own has only per-read timeouts, which a client
  // sending a byte every few seconds never trips).
  bool process_and_close_socket(socket_t sock) override;

  ConnectionLimits limits_;
  std::atomic<size_t> waiting_{0};
};

}  // namespace ec::serve
