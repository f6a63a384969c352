// Fuzz entry point for the server's request handling: the input is sent as raw bytes on a loopback
// connection to an in-process SiteServer, then the write side is closed.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>

#include "fuzz_support.h"
#include "serve/site_server.h"

namespace ec::fuzz {

// The errno of the last exchange's connect(), 0 when it connected.
inline int& connect_errno() {
  static int e = 0;
  return e;
}

// connect(), 0 or its errno. libFuzzer's timers send signals, so a call can return EINTR while the
// connection goes on being made: poll() then says when it is done, and SO_ERROR how it ended. (A
// probe's connect interrupted so was once reported as the server no longer answering.)
inline int connect_through_signals(int sock, const sockaddr_in& addr) {
  if (::connect(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0) return 0;
  if (errno != EINTR) return errno;
  pollfd p{sock, POLLOUT, 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, 10000);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return ready == 0 ? ETIMEDOUT : errno;
  int err = 0;
  socklen_t len = sizeof(err);
  if (::getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

// Sends `bytes` to 127.0.0.1:port, closes the write side, returns what came back (bounded wait).
// A send or receive a signal interrupts is tried again.
inline std::string exchange(int port, std::span<const uint8_t> bytes) {
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // Closed with a reset, not a FIN: thousands of exchanges a second would otherwise leave as many
  // client ports in TIME_WAIT, and a probe that cannot get a port says nothing about the server.
  const linger abort_on_close{1, 0};
  ::setsockopt(sock, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof(abort_on_close));
  std::string got;
  connect_errno() = connect_through_signals(sock, addr);
  if (connect_errno() == 0) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(sock, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    ::shutdown(sock, SHUT_WR);
    for (int waited_ms = 0; waited_ms < 10000;) {
      pollfd p{sock, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) {
        waited_ms += 100;
        continue;
      }
      char buf[4096];
      const ssize_t n = ::recv(sock, buf, sizeof(buf), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(sock);
  return got;
}

// Whatever the bytes, the server answers with HTTP or closes, and still serves the next request.
inline void serve_request_one_input(std::span<const uint8_t> bytes) {
  static int port = [] {
    static serve::SiteServer server(site::SiteFiles{{"index.html", "<!doctype html>"}},
                                    std::nullopt, serve::ServeOptions{.port = 0});
    const int p = server.bind();
    std::thread([] { server.listen(); }).detach();
    return p;
  }();
  const std::string reply = exchange(port, bytes);
  expect(reply.empty() || reply.rfind("HTTP/1.1 ", 0) == 0, "a reply that is not HTTP");
  static const std::string probe = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  const std::string after =
      exchange(port, {reinterpret_cast<const uint8_t*>(probe.data()), probe.size()});
  if (after.rfind("HTTP/1.1 200", 0) != 0) {
    // Said with what the probe saw, so that a failure in CI can be told apart from the client's
    // own trouble (connect's errno) when it cannot be reproduced.
    const std::string seen = after.substr(0, 40);
    expect(false, ("the server stopped answering after this input (probe connect errno " +
                   std::to_string(connect_errno()) + ", reply '" + seen + "')"));
  }
}

}  // namespace ec::fuzz
