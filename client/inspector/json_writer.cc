#include "json_writer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ik::inspector {

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_value_.empty()) return;
  if (has_value_.back()) out_.push_back(',');
  has_value_.back() = true;
}

void JsonWriter::Open(char bracket) {
  Separate();
  out_.push_back(bracket);
  has_value_.push_back(false);
}

void JsonWriter::Close(char bracket) {
  out_.push_back(bracket);
  has_value_.pop_back();
}

void JsonWriter::Key(absl::string_view key) {
  String(key);
  out_.push_back(':');
  after_key_ = true;
}

void JsonWriter::String(absl::string_view value) {
  Separate();
  out_.push_back('"');
  for (const char c : value) {
    switch (c) {
      case '"':
        out_.append("\\\"");
        break;
      case '\\':
        out_.append("\\\\");
        break;
      case '\n':
        out_.append("\\n");
        break;
      default:
        // Other control characters as \u escapes; bytes >= 0x80 are UTF-8
        // (protobuf checks proto3 strings) and pass through.
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out_, "\\u%04x", static_cast<int>(c));
        } else {
          out_.push_back(c);
        }
    }
  }
  out_.push_back('"');
}

void JsonWriter::Number(double value) {
  if (!std::isfinite(value)) return Null();
  Separate();
  // + 0.0 writes -0 as 0.
  absl::StrAppendFormat(&out_, "%.9g", value + 0.0);
}

void JsonWriter::Int(int64_t value) {
  Separate();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Bool(bool value) {
  Separate();
  out_.append(value ? "true" : "false");
}

void JsonWriter::Null() {
  Separate();
  out_.append("null");
}

void JsonWriter::Xyz(double x, double y, double z) {
  BeginArray();
  Number(x);
  Number(y);
  Number(z);
  EndArray();
}

void JsonWriter::Xyzw(double x, double y, double z, double w) {
  BeginArray();
  Number(x);
  Number(y);
  Number(z);
  Number(w);
  EndArray();
}

}  // namespace ik::inspector
