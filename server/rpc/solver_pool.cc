#include "rpc/solver_pool.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <utility>

namespace ik::server {

SolverPool::SolverPool(int threads, int max_queued, int nice,
                       std::int64_t max_client_bytes, std::int64_t max_bytes)
    : thread_count_(std::max(threads, 1)),
      max_queued_(std::max(max_queued, 1)),
      max_client_bytes_(max_client_bytes),
      max_bytes_(max_bytes) {
  workers_.reserve(thread_count_);
  for (int i = 0; i < thread_count_; ++i) {
    workers_.emplace_back([this, nice] {
      // Raising a thread's nice value needs no privilege; a failure would
      // only leave it at the process's priority.
      if (nice > 0) {
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice);
      }
      Work();
    });
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
  return PostRequest(client, 0, std::move(task)) == Refused::kNone;
}

SolverPool::Refused SolverPool::PostRequest(absl::string_view client,
                                            std::int64_t bytes,
                                            absl::AnyInvocable<void() &&> task,
                                            Refusal refuse) {
  absl::MutexLock lock(&mutex_);
  auto found = queues_.find(client);
  Refused refused = Refused::kNone;
  if (queued_ >= max_queued_) {
    refused = Refused::kQueueFull;
  } else if (found != queues_.end() &&
             found->second.bytes + bytes > max_client_bytes_) {
    refused = Refused::kClientFull;
  } else if (queued_ > 0 && queued_bytes_ + bytes > max_bytes_) {
    refused = Refused::kBytesFull;
  }
  if (refused != Refused::kNone) {
    // Tasks wait (every bound above needs one), so a taking releases it.
    if (refuse) {
      ++refusals_waiting_;
      if (refused == Refused::kClientFull) {
        found->second.refusals.push_back(std::move(refuse));
      } else {
        refusals_.emplace_back(std::move(refuse), refused);
      }
    }
    return refused;
  }
  Queue& queue = found != queues_.end() ? found->second : queues_[client];
  if (queue.tasks.empty()) turns_.emplace_back(client);
  queue.tasks.emplace_back(std::move(task), bytes);
  queue.bytes += bytes;
  queued_bytes_ += bytes;
  ++queued_;
  waiting_.store(queued_, std::memory_order_relaxed);
  return Refused::kNone;
}

int SolverPool::refusals_waiting() const {
  absl::MutexLock lock(&mutex_);
  return refusals_waiting_;
}

void SolverPool::Released::Answer() {
  for (auto& [refuse, why] : refusals) std::move(refuse)(why);
  refusals.clear();
}

int SolverPool::queued() const {
  absl::MutexLock lock(&mutex_);
  return queued_;
}

namespace {

// The pool whose worker this thread is, and whether it runs a task Yield
// took (no nesting).
thread_local const SolverPool* worker_of = nullptr;
thread_local bool yielding = false;

}  // namespace

SolverPool::Task SolverPool::TakeLocked(size_t turn, Released& released) {
  std::string client = std::move(turns_[turn]);
  turns_.erase(turns_.begin() + static_cast<std::ptrdiff_t>(turn));
  auto found = queues_.find(client);
  Queue& queue = found->second;
  Task task = std::move(queue.tasks.front().first);
  queue.bytes -= queue.tasks.front().second;
  queued_bytes_ -= queue.tasks.front().second;
  queue.tasks.pop_front();
  --queued_;
  waiting_.store(queued_, std::memory_order_relaxed);
  // One refusal per room made: the client's for its own bound, anyone's
  // for the pool's; all of them once nothing of theirs waits.
  const auto release = [&](Refusal refuse, Refused why) {
    released.refusals.emplace_back(std::move(refuse), why);
    --refusals_waiting_;
  };
  while (!queue.refusals.empty() &&
         (queue.tasks.empty() || released.refusals.empty())) {
    release(std::move(queue.refusals.front()), Refused::kClientFull);
    queue.refusals.pop_front();
  }
  for (bool first = true; !refusals_.empty() && (first || queued_ == 0);
       first = false) {
    release(std::move(refusals_.front().first), refusals_.front().second);
    refusals_.pop_front();
  }
  if (queue.tasks.empty()) {
    queues_.erase(found);
  } else {
    turns_.push_back(std::move(client));
  }
  return task;
}

void SolverPool::Yield(absl::string_view client) {
  if (worker_of != this || yielding ||
      waiting_.load(std::memory_order_relaxed) == 0) {
    return;
  }
  Task task;
  Released released;
  {
    absl::MutexLock lock(&mutex_);
    for (size_t turn = 0; turn < turns_.size(); ++turn) {
      if (turns_[turn] != client) {
        task = TakeLocked(turn, released);
        break;
      }
    }
  }
  released.Answer();
  if (!task) return;
  yielding = true;
  std::move(task)();
  yielding = false;
}

void SolverPool::Work() {
  worker_of = this;
  for (;;) {
    absl::AnyInvocable<void() &&> task;
    Released released;
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(
          +[](SolverPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mutex_) {
            return pool->stopping_ || pool->queued_ > 0;
          },
          this));
      if (queued_ == 0) return;  // stopping, and nothing left
      // The next client in turn gives one task.
      task = TakeLocked(0, released);
    }
    released.Answer();
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

// Takes indices until none is left, giving way to other clients between
// them; returns how many it ran.
int RunShare(Progress& progress, absl::FunctionRef<void(int)> fn,
             absl::FunctionRef<void()> give_way) {
  int ran = 0;
  for (int i = progress.next.fetch_add(1); i < progress.count;
       i = progress.next.fetch_add(1)) {
    fn(i);
    ++ran;
    give_way();
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
    const bool posted =
        Post(client, [this, progress, fn, owner = std::string(client)] {
          const int ran =
              RunShare(*progress, fn, [this, &owner] { Yield(owner); });
          if (ran == 0) return;
          absl::MutexLock lock(&progress->mutex);
          progress->done += ran;
        });
    if (!posted) break;  // the queue is full: this thread does the rest
  }
  const int ran = RunShare(*progress, fn, [this, client] { Yield(client); });
  absl::MutexLock lock(&progress->mutex);
  progress->done += ran;
  progress->mutex.Await(absl::Condition(
      +[](Progress* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mutex) {
        return p->done == p->count;
      },
      progress.get()));
}

}  // namespace ik::server
