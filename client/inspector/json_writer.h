// A small streaming JSON writer for the inspector's endpoints: objects,
// arrays, strings, numbers and booleans appended to one string, commas
// placed by the writer. Numbers that are not finite are written as null
// (JSON has no NaN); doubles keep 9 significant digits (sub-micrometre for
// positions within kilometres of the origin).
//
//   JsonWriter json;
//   json.BeginObject();
//   json.Key("joints");
//   json.BeginArray();
//   json.Number(0.5);
//   json.EndArray();
//   json.EndObject();
//   std::string text = json.Take();
//
// Not thread-safe; the caller balances Begin/End (unchecked).
#ifndef IK_CLIENT_INSPECTOR_JSON_WRITER_H_
#define IK_CLIENT_INSPECTOR_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace ik::inspector {

class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // The next value's key, inside an object.
  void Key(absl::string_view key);
  void String(absl::string_view value);
  void Number(double value);
  void Int(int64_t value);
  void Bool(bool value);
  void Null();
  // A vector [x, y, z] and a quaternion [x, y, z, w] (wire order).
  void Xyz(double x, double y, double z);
  void Xyzw(double x, double y, double z, double w);

  // Shorthands for a key and its value.
  void Field(absl::string_view key, absl::string_view value) {
    Key(key);
    String(value);
  }
  void Field(absl::string_view key, const char* value) {
    Key(key);
    String(value);
  }
  void FieldNumber(absl::string_view key, double value) {
    Key(key);
    Number(value);
  }
  void FieldInt(absl::string_view key, int64_t value) {
    Key(key);
    Int(value);
  }
  void FieldBool(absl::string_view key, bool value) {
    Key(key);
    Bool(value);
  }

  std::string Take() { return std::move(out_); }

 private:
  // A comma before every value but the first of its container; none after
  // a key.
  void Separate();
  void Open(char bracket);
  void Close(char bracket);

  std::string out_;
  // Per open container: whether it holds a value yet.
  std::vector<bool> has_value_;
  bool after_key_ = false;
};

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_JSON_WRITER_H_
