#include "loadgen_unread.h"

#include <grpc/grpc.h>
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "crowd.h"
#include "ik/v1/ik.grpc.pb.h"
#include "loadgen_raw_call.h"
#include "loadgen_util.h"

namespace ik::loadgen {
namespace {

constexpr char kTickMethod[] = "/ik.v1.IkService/Tick";

// How often ikd's VmRSS is read while the streams are open.
constexpr absl::Duration kResidentPeriod = absl::Milliseconds(50);

double MiB(std::int64_t bytes) { return bytes / (1024.0 * 1024.0); }

// The i-th caller's client options: its token, a connection of its own
// (channels to one target share one unless told not to), and no BDP
// probing, so that its streams' flow-control window stays at HTTP/2's
// initial 64 KiB (gRPC grows it with the bandwidth-delay product it probes
// otherwise) and an unread answer stays with ikd.
ClientOptions CallerOptions(const ClientOptions& base,
                            const UnreadOptions& unread, int caller) {
  ClientOptions options = base;
  options.token = unread.tokens.empty() ? "" : unread.tokens[caller];
  options.channel_arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  options.channel_arguments.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  return options;
}

// The tick every caller sends: the synthetic crowd's first, its answer as
// large as the crowd's answers get (TICK_DETAIL_FULL, job rotations).
absl::StatusOr<v1::TickRequest> LargeTick(Client& client,
                                          const UnreadOptions& unread) {
  absl::StatusOr<v1::GetRigResponse> rig = client.GetRig(unread.rig);
  if (!rig.ok()) return rig.status();
  CrowdOptions crowd;
  crowd.characters = unread.characters;
  crowd.terrain = unread.terrain;
  crowd.seed = unread.seed;
  crowd.pose_form = CrowdPoseForm::kPacked;
  crowd.detail = v1::TICK_DETAIL_FULL;
  crowd.job_rotations = true;
  return SyntheticCrowd(rig->rig(), crowd).NextTick();
}

// The largest VmRSS of a process, read every kResidentPeriod on a thread of
// its own from construction until Stop(). Peak and when are read after
// Stop().
class PeakResident {
 public:
  explicit PeakResident(int pid)
      : pid_(pid), start_(absl::Now()), thread_([this] { Sample(); }) {}
  ~PeakResident() { Stop(); }
  PeakResident(const PeakResident&) = delete;
  PeakResident& operator=(const PeakResident&) = delete;

  void Stop() {
    if (!stop_.HasBeenNotified()) stop_.Notify();
    if (thread_.joinable()) thread_.join();
  }
  std::int64_t peak_bytes() const { return peak_bytes_; }
  // Since construction.
  absl::Duration peak_at() const { return peak_at_; }

 private:
  void Sample() {
    do {
      const std::int64_t bytes = ProcessResidentBytes(pid_);
      if (bytes > peak_bytes_) {
        peak_bytes_ = bytes;
        peak_at_ = absl::Now() - start_;
      }
    } while (!stop_.WaitForNotificationWithTimeout(kResidentPeriod));
  }

  const int pid_;
  const absl::Time start_;
  absl::Notification stop_;
  // Written by the sampling thread only, read after it is joined.
  std::int64_t peak_bytes_ = 0;
  absl::Duration peak_at_;
  std::thread thread_;
};

// What one caller counts.
struct CallerTally {
  // Unary Ticks by status: the call's, or for a call answered OK, the
  // tick's (TickStatus).
  std::map<absl::StatusCode, int> unary;
  // Stream ticks written (each on a stream of its own, never read).
  int stream_ticks = 0;
};

// One caller until `end`: its streams opened and their ticks written, then
// unary Ticks back to back (the last cut at `end`); then, after `cancel`,
// its streams cancelled.
void RunCaller(const Client& client, const v1::TickRequest& tick,
               const grpc::ByteBuffer& tick_bytes, int streams,
               absl::Duration deadline, absl::Time end,
               const absl::Notification& cancel, CallerTally& tally) {
  std::unique_ptr<v1::IkService::Stub> stub =
      v1::IkService::NewStub(client.channel());
  // No deadline: each stream lasts until it is cancelled.
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<
      grpc::ClientReaderWriter<v1::TickRequest, v1::TickResponse>>>
      opened;
  for (int s = 0; s < streams; ++s) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    client.PrepareContext(*contexts.back());
    opened.push_back(stub->TickStream(contexts.back().get()));
    if (opened.back()->Write(tick)) ++tally.stream_ticks;
  }

  RawCaller caller(client, deadline);
  grpc::ByteBuffer answer;
  while (absl::Now() < end) {
    const grpc::Status status = caller.Call(kTickMethod, tick_bytes, &answer,
                                            /*deadline=*/end);
    ++tally.unary[status.ok() ? TickStatus(answer).code()
                              : FromGrpc(status).code()];
  }

  cancel.WaitForNotification();
  for (int s = 0; s < streams; ++s) {
    contexts[s]->TryCancel();
    opened[s]->Finish().IgnoreError();  // CANCELLED
  }
}

// "OK 3, RESOURCE_EXHAUSTED 1234".
std::string ByCode(const std::map<absl::StatusCode, int>& counts) {
  return absl::StrJoin(counts, ", ", [](std::string* out, const auto& count) {
    absl::StrAppend(out, absl::StatusCodeToString(count.first), " ",
                    count.second);
  });
}

// The tick every caller sends, and its answer's size.
struct PreparedTick {
  v1::TickRequest request;
  grpc::ByteBuffer bytes;
  std::int64_t answer_bytes = 0;
};

// Builds the tick, sends it once on the first client (reading the answer)
// to check that ikd answers it, and connects every client. Why not, when
// one of these fails.
absl::StatusOr<PreparedTick> Prepare(
    const std::vector<std::unique_ptr<Client>>& clients,
    const UnreadOptions& unread, absl::Duration deadline) {
  absl::StatusOr<v1::TickRequest> request = LargeTick(*clients[0], unread);
  if (!request.ok()) return request.status();
  PreparedTick tick;
  tick.bytes = Serialized(*request);
  tick.request = *std::move(request);
  RawCaller caller(*clients[0], deadline);
  grpc::ByteBuffer answer;
  absl::Status answered =
      FromGrpc(caller.Call(kTickMethod, tick.bytes, &answer));
  if (answered.ok()) answered = TickStatus(answer);
  if (!answered.ok()) {
    return absl::Status(answered.code(), absl::StrCat("the tick, sent once: ",
                                                      answered.message()));
  }
  tick.answer_bytes = answer.Length();
  for (const std::unique_ptr<Client>& client : clients) {
    if (!client->channel()->WaitForConnected(
            absl::ToChronoTime(absl::Now() + deadline))) {
      return absl::UnavailableError("cannot connect");
    }
  }
  return tick;
}

// What the callers did while they held their streams unread, and ikd's
// CPU and peak resident memory meanwhile.
struct Held {
  int stream_ticks = 0;
  int calls = 0;
  std::map<absl::StatusCode, int> unary;
  double cpu_seconds = 0;
  std::int64_t peak_bytes = 0;
  absl::Duration peak_at;
};

// Every caller writes its streams' ticks and sends unary ticks until
// `unread.seconds` have passed, while ikd (`pid`) is watched; then they
// are cancelled.
Held HoldUnread(const std::vector<std::unique_ptr<Client>>& clients,
                const PreparedTick& tick, const UnreadOptions& unread,
                absl::Duration deadline, int pid) {
  const double cpu_seconds_before = ProcessCpuSeconds(pid);
  PeakResident peak(pid);
  const absl::Time end = absl::Now() + absl::Seconds(unread.seconds);
  absl::Notification cancel;
  std::vector<CallerTally> tallies(unread.callers);
  std::vector<std::thread> callers;
  for (int caller = 0; caller < unread.callers; ++caller) {
    callers.emplace_back([&, caller] {
      RunCaller(*clients[caller], tick.request, tick.bytes, unread.streams,
                deadline, end, cancel, tallies[caller]);
    });
  }
  absl::SleepFor(end - absl::Now());
  peak.Stop();
  Held held;
  held.cpu_seconds = ProcessCpuSeconds(pid) - cpu_seconds_before;
  held.peak_bytes = peak.peak_bytes();
  held.peak_at = peak.peak_at();
  cancel.Notify();
  for (int caller = 0; caller < unread.callers; ++caller) {
    callers[caller].join();
    held.stream_ticks += tallies[caller].stream_ticks;
    for (const auto& [code, count] : tallies[caller].unary) {
      held.unary[code] += count;
      held.calls += count;
    }
  }
  return held;
}

}  // namespace

int RunUnread(const ClientOptions& options, const UnreadOptions& unread) {
  const int pid = unread.ikd_pid;
  const std::int64_t idle = ProcessResidentBytes(pid);
  std::vector<std::unique_ptr<Client>> clients;
  for (int caller = 0; caller < unread.callers; ++caller) {
    clients.push_back(
        std::make_unique<Client>(CallerOptions(options, unread, caller)));
  }
  if (idle <= 0) {
    absl::FPrintF(stderr,
                  "ikd_loadgen: unread: cannot read VmRSS of --ikd_pid=%d\n",
                  pid);
    return 1;
  }
  absl::StatusOr<PreparedTick> tick =
      Prepare(clients, unread, options.deadline);
  if (!tick.ok()) {
    absl::FPrintF(stderr, "ikd_loadgen: unread: %s: %s\n", options.target,
                  tick.status().ToString());
    return 1;
  }
  const std::int64_t warm = ProcessResidentBytes(pid);
  absl::PrintF(
      "unread: %d callers x %d TickStreams, one tick written on each and "
      "never read; the tick: %d characters, TICK_DETAIL_FULL with job "
      "rotations, request %.2f MiB, answer %.2f MiB\n",
      unread.callers, unread.streams, unread.characters,
      MiB(tick->bytes.Length()), MiB(tick->answer_bytes));

  const Held held = HoldUnread(clients, *tick, unread, options.deadline, pid);
  // Time for ikd to drop what the cancelled calls held.
  absl::SleepFor(absl::Seconds(1));
  const std::int64_t after = ProcessResidentBytes(pid);

  absl::PrintF(
      "stream ticks written: %d of %d; ikd CPU while they were open: %.2f s\n",
      held.stream_ticks, unread.callers * unread.streams, held.cpu_seconds);
  absl::PrintF("unary Ticks in %.1f s: %d; by code: %s\n", unread.seconds,
               held.calls, ByCode(held.unary));
  absl::PrintF(
      "ikd VmRSS MiB: idle %.1f, after one tick %.1f, peak %.1f (at %.2f s), "
      "1 s after the cancel %.1f\n",
      MiB(idle), MiB(warm), MiB(held.peak_bytes),
      absl::ToDoubleSeconds(held.peak_at), MiB(after));
  absl::PrintF("ikd VmRSS peak - idle: %.1f MiB\n",
               MiB(held.peak_bytes - idle));
  return 0;
}

}  // namespace ik::loadgen
