#include "common/json.h"

#include "common/error.h"

namespace tessera {

Json ParseJson(const std::string& text, const std::string& what) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(what + ": not JSON (" + e.what() + ")");
  }
}

}  // namespace tessera
