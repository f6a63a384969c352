// Fuzz entry point for the server's request handling: the input is sent as raw bytes on a loopback
// connection to an in-process SiteServer, then the write side is closed.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>

#include "fuzz_support.h"
#include "serve/site_server.h"

namespace ec::fuzz {

// Sends `bytes` to 127.0.0.1:port, closes the write side, returns what came back (bounded wait).
inline std::string exchange(int port, std::span<const uint8_t> bytes) {
  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string got;
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(sock, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
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
  expect(after.rfind("HTTP/1.1 200", 0) == 0, "the server stopped answering after this input");
}

}  // namespace ec::fuzz
