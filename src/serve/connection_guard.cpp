// GuardedServer: a deadline-keeping socket stream, the keep-alive loop, and the overflow answer.
#include "serve/connection_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

namespace ec::serve {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Waits until `sock` has `events` or `deadline` (steady seconds) passes; false on timeout/error.
bool wait_for(int sock, short events, double deadline) {
  for (;;) {
    const double left = deadline - now_s();
    if (left <= 0.0) return false;
    pollfd p{sock, events, 0};
    const int ms = static_cast<int>(std::min(left * 1000.0 + 1.0, 1000.0));
    const int n = ::poll(&p, 1, ms);
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n < 0 && errno != EINTR) return false;
  }
}

void peer_or_local(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int rc = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                      : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

// A socket whose reads and writes fail once the current request's deadline has passed.
class DeadlineStream final : public httplib::Stream {
 public:
  explicit DeadlineStream(int sock) : sock_(sock) {}
  void set_deadline(double deadline) { deadline_ = deadline; }
  bool buffered() const { return pos_ < len_; }

  bool is_readable() const override { return buffered() || wait_for(sock_, POLLIN, deadline_); }
  bool is_writable() const override { return wait_for(sock_, POLLOUT, deadline_); }

  ssize_t read(char* ptr, size_t size) override {
    // httplib reads a request line byte by byte: serve those from a buffer.
    if (!buffered()) {
      if (!wait_for(sock_, POLLIN, deadline_)) return -1;
      const ssize_t n = ::recv(sock_, buffer_, sizeof(buffer_), 0);
      if (n <= 0) return n;
      pos_ = 0;
      len_ = static_cast<size_t>(n);
    }
    const size_t take = std::min(size, len_ - pos_);
    std::memcpy(ptr, buffer_ + pos_, take);
    pos_ += take;
    return static_cast<ssize_t>(take);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!wait_for(sock_, POLLOUT, deadline_)) return -1;
    return ::send(sock_, ptr, size, MSG_NOSIGNAL);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    peer_or_local(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    peer_or_local(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  int sock_;
  double deadline_ = 0.0;
  char buffer_[4096];
  size_t pos_ = 0, len_ = 0;
};

// The answer to a connection past the cap: written without waiting, whatever the client does.
void refuse_busy(int sock) {
  static const std::string kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
      "Retry-After: 1\r\nConnection: close\r\nContent-Length: 58\r\n\r\n"
      "{\"error\":\"server busy: too many connections, retry later\"}";
  (void)::send(sock, kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// A queue of connections for `workers` threads; one waiting beyond `max_waiting` is refused on
// the accepting thread at once (the connection's task sees `refusing` and answers 503).
thread_local bool refusing = false;
thread_local bool closing = false;

class BoundedPool final : public httplib::TaskQueue {
 public:
  BoundedPool(size_t workers, size_t max_waiting, std::atomic<size_t>& waiting)
      : pool_(workers), max_waiting_(max_waiting), waiting_(waiting) {}
  void enqueue(std::function<void()> fn) override {
    if (waiting_.load() >= max_waiting_) {
      refusing = true;
      fn();
      refusing = false;
      return;
    }
    ++waiting_;
    pool_.enqueue([this, fn = std::move(fn)] {
      --waiting_;
      fn();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  size_t max_waiting_;
  std::atomic<size_t>& waiting_;
};

}  // namespace

void close_connection_after_response() {
  closing = true;
}

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits) {
  new_task_queue = [this] {
    return new BoundedPool(limits_.workers, limits_.max_waiting, waiting_);
  };
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  bool ok = true;
  if (refusing) {
    refuse_busy(sock);
  } else {
    DeadlineStream stream(sock);
    for (size_t left = limits_.keep_alive_requests; left > 0 && is_running(); --left) {
      // The next request's first byte, polled in short steps so that stop() is not kept waiting.
      const double idle_until = now_s() + limits_.idle_s;
      bool arrived = stream.buffered();
      while (!arrived && is_running() && now_s() < idle_until) {
        arrived = wait_for(sock, POLLIN, std::min(idle_until, now_s() + 0.1));
      }
      if (!arrived) break;
      stream.set_deadline(now_s() + limits_.request_s);
      bool closed = false;
      closing = false;
      ok = process_request(stream, /*close_connection=*/left == 1, closed, {});
      if (!ok || closed || closing) break;
    }
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace ec::serve
