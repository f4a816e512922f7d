// Reads a running ikd's metrics over a real socket, as Prometheus does.
#ifndef IK_TESTS_SERVER_METRICS_SCRAPE_H_
#define IK_TESTS_SERVER_METRICS_SCRAPE_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace ik::testing {

// The body of GET /metrics on 127.0.0.1:port (HTTP/1.0: the server closes
// the connection after the answer); empty when it cannot be read.
inline std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return "";
  }
  const std::string request = "GET /metrics HTTP/1.0\r\nHost: ikd\r\n\r\n";
  if (write(fd, request.data(), request.size()) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return "";
  }
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) {
    answer.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  const size_t body = answer.find("\r\n\r\n");
  return body == std::string::npos ? "" : answer.substr(body + 4);
}

// The value of the sample `series` (name and labels exactly as exposed,
// e.g. `ikd_calls_total{code="OK",method="SolveChain"}`); -1 when absent.
inline double Sample(const std::string& text, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, series + " ")) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(series.size() + 1), &value)) return value;
  }
  return -1;
}

// Scrapes port until `series` reaches `at_least` (a state, not a time: the
// test's own limit ends a wait that never comes true).
inline void WaitForSample(int port, const std::string& series,
                          double at_least) {
  while (Sample(Scrape(port), series) < at_least) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Scrapes port until `series` falls to `at_most`; returns that scrape.
// ikd_calls_in_flight drops only once gRPC has finished a call (after its
// client may already hold the answer), so a test that counts calls waits
// for it to reach 0 first.
inline std::string ScrapeWhenAtMost(int port, const std::string& series,
                                    double at_most) {
  for (;;) {
    std::string text = Scrape(port);
    if (Sample(text, series) <= at_most) return text;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_METRICS_SCRAPE_H_
