#include "loadgen_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"

namespace ik::loadgen {

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const size_t index = std::min(sorted.size() - 1,
                                static_cast<size_t>(p / 100.0 * sorted.size()));
  return sorted[index];
}

double ProcessCpuSeconds(int pid) {
  if (pid <= 0) return 0.0;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(stat, line)) return 0.0;
  // Fields after the command (which may hold spaces) in parentheses.
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string field;
  double ticks = 0.0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::int64_t ProcessResidentBytes(int pid) {
  if (pid <= 0) return 0;
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::int64_t kib = 0;  // "VmRSS:   123456 kB"
    return fields >> kib ? kib * 1024 : 0;
  }
  return 0;
}

double ThreadCpuSeconds(int pid, const std::string& name) {
  if (pid <= 0) return 0.0;
  double seconds = 0.0;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator(
           absl::StrCat("/proc/", pid, "/task"), error)) {
    std::ifstream comm(task.path() / "comm");
    std::string thread;
    if (!std::getline(comm, thread) || thread != name) continue;
    std::ifstream schedstat(task.path() / "schedstat");
    double nanos = 0.0;  // the first field: time on a CPU
    if (schedstat >> nanos) seconds += nanos * 1e-9;
  }
  return seconds;
}

}  // namespace ik::loadgen
