// The server under slow, idle and too many clients on 127.0.0.1: normal requests still answer
// within a second, a held connection is cut at its deadline, the cap answers 503 at once.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "serve/site_server.h"

namespace ec::serve {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A raw TCP connection to 127.0.0.1:port (-1 when connect fails).
int connect_to(int port) {
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(sock);
    return -1;
  }
  return sock;
}

// What the server sent before closing, or before `seconds`; `closed` says whether it closed.
std::string read_until_closed(int sock, double seconds, bool* closed) {
  std::string got;
  const double until = now_s() + seconds;
  *closed = false;
  while (now_s() < until) {
    pollfd p{sock, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[1024];
    const ssize_t n = ::recv(sock, buf, sizeof(buf), 0);
    if (n <= 0) {
      *closed = true;
      break;
    }
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

class SlowClientsTest : public ::testing::Test {
 protected:
  void start(ServeOptions options) {
    site::SiteFiles files{{"index.html", "<!doctype html><title>t</title>"}};
    options.port = 0;
    server_ = std::make_unique<SiteServer>(std::move(files), std::nullopt, options);
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->listen(); });
  }
  void TearDown() override {
    for (int s : sockets_) ::close(s);
    if (server_) {
      server_->stop();
      thread_.join();
    }
  }
  int open_socket() {
    int s = connect_to(port_);
    if (s >= 0) sockets_.push_back(s);
    return s;
  }

  std::unique_ptr<SiteServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::vector<int> sockets_;
};

TEST_F(SlowClientsTest, ThirtyTwoSlowOrIdleConnectionsDoNotDelayOthers) {
  start({});
  // 16 connections that send nothing, 16 that send a request head one byte every 100 ms.
  std::vector<int> idle, slow;
  for (int i = 0; i < 16; ++i) {
    idle.push_back(open_socket());
    slow.push_back(open_socket());
    ASSERT_GE(idle.back(), 0);
    ASSERT_GE(slow.back(), 0);
  }
  std::atomic<bool> done{false};
  std::thread drip([&] {
    const std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(200, 'a');
    for (size_t i = 0; i < head.size() && !done; ++i) {  // at most 20 s
      for (int s : slow) (void)::send(s, &head[i], 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // all 32 are in the server
  double slowest = 0.0;
  int answered = 0;
  const std::string get = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  for (int i = 0; i < 100; ++i) {
    const double t = now_s();
    const int s = connect_to(port_);
    ASSERT_GE(s, 0);
    (void)::send(s, get.data(), get.size(), MSG_NOSIGNAL);
    bool closed = false;
    const std::string got = read_until_closed(s, 2.0, &closed);
    ::close(s);
    slowest = std::max(slowest, now_s() - t);
    if (got.rfind("HTTP/1.1 200", 0) == 0) ++answered;
  }
  EXPECT_EQ(answered, 100);
  EXPECT_LT(slowest, 1.0);
  // The held connections are cut: an idle one after idle_s (2 s), a slow one once its request
  // has taken request_s (5 s), both well before the 20 s the drip would last.
  bool closed = false;
  (void)read_until_closed(idle.back(), 10.0, &closed);
  EXPECT_TRUE(closed) << "an idle connection was kept";
  (void)read_until_closed(slow.back(), 10.0, &closed);
  EXPECT_TRUE(closed) << "a byte-a-tick connection was kept";
  done = true;
  drip.join();
}

TEST_F(SlowClientsTest, AHugeDeclaredBodyIsRefusedWithoutWaitingForIt) {
  start({});
  int s = open_socket();
  ASSERT_GE(s, 0);
  const std::string head =
      "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n";
  ASSERT_EQ(::send(s, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  bool closed = false;
  const double t = now_s();
  std::string got = read_until_closed(s, 4.0, &closed);
  EXPECT_LT(now_s() - t, 1.0);
  EXPECT_TRUE(closed);
  EXPECT_EQ(got.rfind("HTTP/1.1 413", 0), 0u) << got;
  EXPECT_NE(got.find("\"error\""), std::string::npos) << got;
}

TEST_F(SlowClientsTest, ConnectionsBeyondTheCapAreAnswered503AtOnce) {
  ServeOptions options;
  options.connections.workers = 2;
  options.connections.max_waiting = 2;
  options.connections.idle_s = 30.0;  // the held ones stay for the test's length
  start(options);
  // 2 held by the workers, 2 waiting: once the server has taken them in, every further
  // connection is refused with a 503 at once. The fifth may arrive before the accepting thread
  // has queued the others, so connections are opened until the first refusal (at most 10).
  auto refused_now = [&] {
    int s = open_socket();
    if (s < 0) return false;
    bool closed = false;
    std::string got = read_until_closed(s, 0.5, &closed);
    return got.rfind("HTTP/1.1 503", 0) == 0 && closed &&
           got.find("\"error\"") != std::string::npos;
  };
  int opened = 0;
  while (opened < 10 && !refused_now()) ++opened;
  EXPECT_GE(opened, 4) << "refused before the workers and the queue were full";
  EXPECT_LT(opened, 10) << "no connection was refused";
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(refused_now()) << i;
}

}  // namespace
}  // namespace ec::serve
