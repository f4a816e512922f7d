#include "json_writer.h"

#include <limits>

#include "gtest/gtest.h"

namespace ik::inspector {
namespace {

TEST(JsonWriterTest, PlacesCommasBetweenValuesAndNoneAfterKeys) {
  JsonWriter json;
  json.BeginObject();
  json.FieldInt("a", 1);
  json.Key("b");
  json.BeginArray();
  json.Bool(true);
  json.Null();
  json.Xyz(1, 2, 3);
  json.EndArray();
  json.Field("c", "x");
  json.EndObject();
  EXPECT_EQ(json.Take(), R"({"a":1,"b":[true,null,[1,2,3]],"c":"x"})");
}

TEST(JsonWriterTest, EscapesQuotesBackslashesAndControlCharacters) {
  JsonWriter json;
  json.String("a\"b\\c\nd\x01");
  EXPECT_EQ(json.Take(), R"("a\"b\\c\nd\u0001")");
}

TEST(JsonWriterTest, WritesNonFiniteNumbersAsNullAndNegativeZeroAsZero) {
  JsonWriter json;
  json.BeginArray();
  json.Number(std::numeric_limits<double>::quiet_NaN());
  json.Number(std::numeric_limits<double>::infinity());
  json.Number(-0.0);
  json.Number(0.123456789012);
  json.EndArray();
  EXPECT_EQ(json.Take(), "[null,null,0,0.123456789]");
}

}  // namespace
}  // namespace ik::inspector
