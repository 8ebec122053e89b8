/// \file
/// The one writer of the JSON that programs print (`--json` of the CLI and the benchmarks), on
/// nlohmann-json: strings are escaped, keys keep the order they were set in, non-finite numbers
/// print as null.
#ifndef TESSERA_COMMON_JSON_H_
#define TESSERA_COMMON_JSON_H_

#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace tessera {

/// A JSON value whose objects keep insertion order.
using Json = nlohmann::ordered_json;

/// Writes `value` as one line of compact JSON followed by a newline.
inline void PrintJsonLine(const Json& value, std::ostream& out) {
  // Invalid UTF-8 in a string (a key typed in another encoding) is replaced, never thrown.
  out << value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

/// `value` rounded to `digits` decimals, for figures printed with the precision they have.
inline double Round(double value, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(value * scale) / scale;
}

/// Parses JSON text written by another Tessera writer; throws `UserError` naming `what` when it
/// is malformed.
Json ParseJson(const std::string& text, const std::string& what);

}  // namespace tessera

#endif  // TESSERA_COMMON_JSON_H_
