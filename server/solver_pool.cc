#include "server/solver_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <utility>

namespace ik::server {

SolverPool::SolverPool(int threads, int max_queued)
    : max_queued_(std::max(max_queued, 1)) {
  workers_.reserve(std::max(threads, 1));
  for (int i = 0; i < std::max(threads, 1); ++i) {
    workers_.emplace_back([this] { Work(); });
  }
}

SolverPool::~SolverPool() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  for (std::thread& worker : workers_) worker.join();
}

bool SolverPool::Post(absl::string_view client,
                      absl::AnyInvocable<void() &&> task) {
  absl::MutexLock lock(&mutex_);
  if (queued_ >= max_queued_) return false;
  std::deque<Task>& queue = queues_[client];
  if (queue.empty()) turns_.emplace_back(client);
  queue.push_back(std::move(task));
  ++queued_;
  return true;
}

int SolverPool::queued() const {
  absl::MutexLock lock(&mutex_);
  return queued_;
}

void SolverPool::Work() {
  for (;;) {
    absl::AnyInvocable<void() &&> task;
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(
          +[](SolverPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mutex_) {
            return pool->stopping_ || pool->queued_ > 0;
          },
          this));
      if (queued_ == 0) return;  // stopping, and nothing left
      // The next client in turn gives one task, and goes to the back of the
      // line if it has more.
      std::string client = std::move(turns_.front());
      turns_.pop_front();
      auto found = queues_.find(client);
      task = std::move(found->second.front());
      found->second.pop_front();
      --queued_;
      if (found->second.empty()) {
        queues_.erase(found);
      } else {
        turns_.push_back(std::move(client));
      }
    }
    std::move(task)();
  }
}

namespace {

// One ParallelFor's progress, shared with helpers that may start after it
// returned (they then find nothing left and never touch `fn`).
struct Progress {
  explicit Progress(int count) : count(count) {}
  const int count;
  std::atomic<int> next{0};
  absl::Mutex mutex;
  int done ABSL_GUARDED_BY(mutex) = 0;
};

// Takes indices until none is left; returns how many it ran.
int RunShare(Progress& progress, absl::FunctionRef<void(int)> fn) {
  int ran = 0;
  for (int i = progress.next.fetch_add(1); i < progress.count;
       i = progress.next.fetch_add(1)) {
    fn(i);
    ++ran;
  }
  return ran;
}

}  // namespace

void SolverPool::ParallelFor(absl::string_view client, int count,
                             absl::FunctionRef<void(int)> fn) {
  if (count <= 0) return;
  if (count == 1) {
    fn(0);
    return;
  }
  auto progress = std::make_shared<Progress>(count);
  const int helpers = std::min(count - 1, threads());
  for (int h = 0; h < helpers; ++h) {
    const bool posted = Post(client, [progress, fn] {
      const int ran = RunShare(*progress, fn);
      if (ran == 0) return;
      absl::MutexLock lock(&progress->mutex);
      progress->done += ran;
    });
    if (!posted) break;  // the queue is full: this thread does the rest
  }
  const int ran = RunShare(*progress, fn);
  absl::MutexLock lock(&progress->mutex);
  progress->done += ran;
  progress->mutex.Await(absl::Condition(
      +[](Progress* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mutex) {
        return p->done == p->count;
      },
      progress.get()));
}

}  // namespace ik::server
