// A small fixed thread pool with a blocking parallel-for over an index range (rows of a GEMV,
// heads).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace ec::engine::cpu {

class ThreadPool {
 public:
  // `threads` counts the calling thread, which always takes part; 0 = all hardware threads.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on disjoint chunks covering [0, n), each at least `grain` long (except the
  // last), and returns when all are done. Work below two grains runs inline on the caller, so tiny
  // ops pay no wake-up. The first exception thrown by fn is rethrown here. Not reentrant.
  template <class F>
  void parallel_for(int64_t n, int64_t grain, F&& fn) {
    using Fn = std::remove_reference_t<F>;
    run(
        n, grain, [](void* ctx, int64_t b, int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using Body = void (*)(void*, int64_t, int64_t);
  void run(int64_t n, int64_t grain, Body body, void* ctx);
  void worker_loop();
  void work_on_current_job();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  uint64_t generation_ = 0;  // bumped for every job; workers wait for a new one
  bool stopping_ = false;
  int busy_ = 0;  // workers still inside the current job

  // The current job, published under mutex_ before generation_ is bumped.
  Body body_ = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0;
  int64_t chunk_ = 0;
  int64_t chunks_ = 0;
  std::atomic<int64_t> next_{0};
  std::exception_ptr error_;
};

}  // namespace ec::engine::cpu
