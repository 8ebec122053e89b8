/// \file
/// A minimal JSON reader for configuration entities: objects, arrays, strings, integers, and the
/// literals. Internal to compiler/space.
#ifndef TESSERA_COMPILER_SPACE_JSON_VALUE_H_
#define TESSERA_COMPILER_SPACE_JSON_VALUE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
namespace space {

/// A parsed JSON value; numbers must be integers.
struct JsonValue {
  /// The JSON type of the value.
  enum class Type { kNull, kBool, kInt, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> items;                            ///< array items
  std::vector<std::pair<std::string, JsonValue>> members;  ///< object members, in order

  /// The member called `key`, or null when absent (or when this is not an object).
  const JsonValue* Find(const std::string& key) const;
};

/// Parses `text`; throws `UserError` naming `what` and the byte offset of the problem.
JsonValue ParseJson(const std::string& text, const std::string& what);

/// `text` as a quoted JSON string with escapes.
std::string QuoteJson(const std::string& text);

}  // namespace space
}  // namespace tessera

#endif  // TESSERA_COMPILER_SPACE_JSON_VALUE_H_
