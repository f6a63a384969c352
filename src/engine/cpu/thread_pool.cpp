// A small fixed thread pool: workers sleep on a condition variable and share a job's chunks through
// an atomic counter, so a thread descheduled by a busy machine does not hold the others back.
#include "engine/cpu/thread_pool.h"

#include <algorithm>

namespace ec::engine::cpu {

ThreadPool::ThreadPool(int threads) {
  int total = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  total = std::max(total, 1);
  workers_.reserve(static_cast<size_t>(total - 1));
  for (int i = 1; i < total; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work_on_current_job() {
  for (;;) {
    const int64_t c = next_.fetch_add(1, std::memory_order_relaxed);
    if (c >= chunks_) return;
    const int64_t begin = c * chunk_;
    const int64_t end = std::min(n_, begin + chunk_);
    try {
      body_(ctx_, begin, end);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    work_on_current_job();
    {
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::run(int64_t n, int64_t grain, Body body, void* ctx) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (workers_.empty() || n < 2 * grain) {
    body(ctx, 0, n);
    return;
  }
  // A few chunks per thread balance the load when a thread is preempted.
  const int64_t max_chunks = (n + grain - 1) / grain;
  const int64_t chunks = std::min<int64_t>(max_chunks, 4 * static_cast<int64_t>(size()));
  {
    std::lock_guard lock(mutex_);
    body_ = body;
    ctx_ = ctx;
    n_ = n;
    chunk_ = (n + chunks - 1) / chunks;
    chunks_ = (n + chunk_ - 1) / chunk_;
    next_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    busy_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  work_on_current_job();
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ec::engine::cpu
