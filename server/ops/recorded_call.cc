#include "ops/recorded_call.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <algorithm>
#include <climits>
#include <utility>

#include "ik/wire/tick_bytes.pb.h"

namespace ik::server {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Calls `visit(number, in)` for each length-delimited field (strings, bytes,
// messages) of the message `in` reads, up to its limit, with the field's
// bytes as `in`'s limit; what `visit` leaves unread is skipped. Other fields
// are skipped. Unlike parsing a message type that declares only the fields
// wanted, nothing skipped is copied (into unknown fields): a tick's poses
// are most of its bytes. False when the bytes do not parse.
template <typename Visit>
bool ForEachDelimited(CodedInputStream& in, Visit visit) {
  for (std::uint32_t tag; (tag = in.ReadTag()) != 0;) {
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) return false;
      continue;
    }
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length) || length > INT_MAX) return false;
    const CodedInputStream::Limit limit =
        in.PushLimit(static_cast<int>(length));
    const bool read = visit(WireFormatLite::GetTagFieldNumber(tag), in);
    const bool skipped = in.Skip(in.BytesUntilLimit());
    in.PopLimit(limit);
    if (!read || !skipped) return false;
  }
  return true;
}

// The rest of the field `in` is limited to, as a string.
bool ReadRest(CodedInputStream& in, std::string& out) {
  return in.ReadString(&out, in.BytesUntilLimit());
}

// CallNames filled from a call's bytes.
struct Names : CallNames {
  // An ik.v1.Ground's registered terrains (field 3).
  bool AddTerrains(CodedInputStream& in) {
    return ForEachDelimited(in, [&](int number, CodedInputStream& field) {
      std::string name;
      if (number != 3 || !ReadRest(field, name)) return number != 3;
      if (std::find(terrains.begin(), terrains.end(), name) == terrains.end()) {
        terrains.push_back(std::move(name));
      }
      return true;
    });
  }
  void AddRig(const std::string& name, const std::string& revision) {
    std::string& used = rigs[name];
    if (used.empty()) used = revision;
  }
};

// A CodedInputStream over `buffer`'s slices, for the scans above.
struct BufferInput {
  explicit BufferInput(grpc::ByteBuffer& buffer)
      : reader(&buffer), in(&reader) {
    in.SetTotalBytesLimit(INT_MAX);
  }
  grpc::ProtoBufferReader reader;
  CodedInputStream in;
};

// The revision (field 2) of each character's answer (field 1) of a
// TickResponse: each answer read only up to it -- ikd writes the fields in
// number order -- and the rest skipped at once.
std::vector<std::string> AnswerRevisions(grpc::ByteBuffer& response) {
  std::vector<std::string> found;
  if (response.Length() == 0) return found;
  BufferInput input(response);
  constexpr std::uint32_t kRevision =
      WireFormatLite::MakeTag(2, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  ForEachDelimited(input.in, [&](int number, CodedInputStream& answer) {
    if (number != 1) return true;
    std::string& revision = found.emplace_back();
    for (std::uint32_t tag; (tag = answer.ReadTag()) != 0;) {
      std::uint32_t length = 0;
      if (tag == kRevision) {
        return answer.ReadVarint32(&length) &&
               answer.ReadString(&revision, static_cast<int>(length));
      }
      if (!WireFormatLite::SkipField(&answer, tag)) return false;
    }
    return true;
  });
  return found;
}

std::string Flat(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  bytes.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace

bool IsTick(absl::string_view method) {
  return method == "Tick" || method == "TickStream";
}

// Field numbers are the API's: TickRequest {characters 1, shared_ground 2},
// TickCharacter {rig 2, ground 5}, GroundFeetRequest {ground 4}, the
// single calls' requests {rig 1} and answers {revision 1},
// TickResponse {characters 1}, TickCharacterResult {revision 2}.
CallNames NamesOf(RecordedCallBytes& call) {
  Names names;
  if (IsTick(call.method)) {
    std::vector<std::string> rigs;
    BufferInput input(call.request);
    ForEachDelimited(input.in, [&](int number, CodedInputStream& in) {
      if (number == 2) return names.AddTerrains(in);
      if (number != 1) return true;
      std::string& rig = rigs.emplace_back();
      return ForEachDelimited(in, [&](int field, CodedInputStream& character) {
        if (field == 2) return ReadRest(character, rig);
        if (field != 5) return true;
        return ForEachDelimited(
            character, [&](int ground, CodedInputStream& shapes) {
              return ground != 4 || names.AddTerrains(shapes);
            });
      });
    });
    const std::vector<std::string> revisions = AnswerRevisions(call.response);
    for (size_t k = 0; k < rigs.size(); ++k) {
      names.AddRig(rigs[k], k < revisions.size() ? revisions[k] : "");
    }
    return names;
  }
  std::string rig;
  std::string revision;
  BufferInput request(call.request);
  ForEachDelimited(request.in, [&](int number, CodedInputStream& in) {
    if (number == 1) return ReadRest(in, rig);
    return number != 4 || call.method != "GroundFeet" || names.AddTerrains(in);
  });
  if (call.response.Length() > 0) {
    BufferInput response(call.response);
    ForEachDelimited(response.in, [&](int number, CodedInputStream& in) {
      return number != 1 || ReadRest(in, revision);
    });
  }
  names.AddRig(rig, revision);
  return names;
}

// Keeps the tick's characters whose id (field 1) `keep` holds, in the
// request and the answer; false when none is kept.
bool FilterCharacters(const std::vector<std::string>& keep,
                      grpc::ByteBuffer& request, grpc::ByteBuffer& response) {
  wire::TickRequestBytes in;
  wire::TickResponseBytes out;
  if (!in.ParseFromString(Flat(request))) return false;
  const bool answered =
      response.Length() > 0 && out.ParseFromString(Flat(response));
  wire::TickRequestBytes kept_in = in;
  wire::TickResponseBytes kept_out = out;
  kept_in.clear_characters();
  kept_out.clear_characters();
  for (int k = 0; k < in.characters_size(); ++k) {
    std::string id;
    google::protobuf::io::ArrayInputStream bytes(
        in.characters(k).data(), static_cast<int>(in.characters(k).size()));
    CodedInputStream character(&bytes);
    ForEachDelimited(character, [&](int number, CodedInputStream& field) {
      return number != 1 || ReadRest(field, id);
    });
    if (std::find(keep.begin(), keep.end(), id) == keep.end()) continue;
    kept_in.add_characters(in.characters(k));
    if (answered && k < out.characters_size()) {
      kept_out.add_characters(out.characters(k));
    }
  }
  if (kept_in.characters_size() == 0) return false;
  request = Buffer(kept_in.SerializeAsString());
  if (answered) response = Buffer(kept_out.SerializeAsString());
  return true;
}

}  // namespace ik::server
