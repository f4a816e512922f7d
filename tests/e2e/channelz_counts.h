// Calls and attempts, as gRPC's channelz counts them, for the end-to-end
// tests written in C++: a channel's calls are the application's, its
// subchannels' calls are the attempts (retries included), one subchannel
// per address. Counts are read from channelz's JSON, from the channels of
// this process; give the channel subchannels of its own
// (GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL) and they count only its attempts.
//
//   grpc::ChannelArguments arguments;
//   arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
//   auto channel = grpc::CreateCustomChannel(target, credentials, arguments);
//   ... calls on `channel` ...
//   ChannelCounts counts = ChannelzCounts(target);
//   PrintChannelCounts("round_robin", counts);
//   EXPECT_EQ(counts.calls.failed, 0);
#ifndef IK_TESTS_E2E_CHANNELZ_COUNTS_H_
#define IK_TESTS_E2E_CHANNELZ_COUNTS_H_

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <grpc/grpc.h>
#include <grpc/support/alloc.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

namespace ik::testing {

// "ipv4:127.0.0.1:5000" (a peer or channelz address) -> "127.0.0.1:5000".
inline std::string HostPort(absl::string_view uri) {
  absl::ConsumePrefix(&uri, "ipv4:");
  return std::string(uri);
}

struct CallCounts {
  int64_t started = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;
};

struct ChannelCounts {
  CallCounts calls;
  std::map<std::string, CallCounts> attempts_by_address;  // host:port
};

// Channelz's JSON (int64 values are strings; zero counts are left out),
// parsed; `json` is freed.
inline google::protobuf::Struct ParseChannelz(char* json) {
  google::protobuf::Struct parsed;
  if (json != nullptr) {
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok())
        << json;
    gpr_free(json);
  }
  return parsed;
}

inline const google::protobuf::Value& Field(
    const google::protobuf::Struct& object, const std::string& name) {
  static const google::protobuf::Value* const kNull =
      new google::protobuf::Value();
  auto found = object.fields().find(name);
  return found == object.fields().end() ? *kNull : found->second;
}

inline int64_t Count(const google::protobuf::Struct& data,
                     const std::string& name) {
  const google::protobuf::Value& value = Field(data, name);
  if (value.has_number_value())
    return static_cast<int64_t>(value.number_value());
  // Left out (a zero count), or not a number: 0.
  int64_t count = 0;
  if (value.has_string_value() &&
      !absl::SimpleAtoi(value.string_value(), &count)) {
    count = 0;
  }
  return count;
}

inline CallCounts Counts(const google::protobuf::Struct& data) {
  return {Count(data, "callsStarted"), Count(data, "callsSucceeded"),
          Count(data, "callsFailed")};
}

// The counts of the channel created for `target` (the first such channel).
inline ChannelCounts ChannelzCounts(const std::string& target) {
  ChannelCounts counts;
  const google::protobuf::Struct top =
      ParseChannelz(grpc_channelz_get_top_channels(0));
  for (const google::protobuf::Value& channel :
       Field(top, "channel").list_value().values()) {
    const google::protobuf::Struct& data =
        Field(channel.struct_value(), "data").struct_value();
    if (Field(data, "target").string_value() != target) continue;
    counts.calls = Counts(data);
    for (const google::protobuf::Value& ref :
         Field(channel.struct_value(), "subchannelRef").list_value().values()) {
      int64_t id = 0;
      if (!absl::SimpleAtoi(
              Field(ref.struct_value(), "subchannelId").string_value(), &id)) {
        continue;
      }
      const google::protobuf::Struct subchannel =
          ParseChannelz(grpc_channelz_get_subchannel(id));
      const google::protobuf::Struct& sub_data =
          Field(Field(subchannel, "subchannel").struct_value(), "data")
              .struct_value();
      counts.attempts_by_address[HostPort(
          Field(sub_data, "target").string_value())] = Counts(sub_data);
    }
    break;
  }
  return counts;
}

inline void PrintChannelCounts(const char* label, const ChannelCounts& counts) {
  int64_t attempts = 0;
  for (const auto& [address, attempt] : counts.attempts_by_address) {
    attempts += attempt.started;
    std::printf("  %s: attempts to %s: %lld (succeeded %lld, failed %lld)\n",
                label, address.c_str(), static_cast<long long>(attempt.started),
                static_cast<long long>(attempt.succeeded),
                static_cast<long long>(attempt.failed));
  }
  std::printf(
      "  %s: calls %lld (succeeded %lld, failed %lld), attempts %lld: "
      "%lld beyond the first of each call\n",
      label, static_cast<long long>(counts.calls.started),
      static_cast<long long>(counts.calls.succeeded),
      static_cast<long long>(counts.calls.failed),
      static_cast<long long>(attempts),
      static_cast<long long>(attempts - counts.calls.started));
}

}  // namespace ik::testing

#endif  // IK_TESTS_E2E_CHANNELZ_COUNTS_H_
