#include "rpc_server/client/flags.h"

#include <cstdlib>

#include "proto/grant.h"

namespace tessera {
namespace fleet {

Flags::Flags(std::string program, const std::vector<std::string>& args,
             const std::set<std::string>& switches)
    : program_(std::move(program)) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      throw ConfigError(program_ + ": unexpected argument '" + arg + "'");
    }
    std::string name = arg.substr(2);
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      values_[name.substr(0, eq)] = name.substr(eq + 1);
    } else if (switches.count(name) != 0) {
      values_[name] = "true";
    } else if (i + 1 < args.size()) {
      values_[name] = args[++i];
    } else {
      throw ConfigError(program_ + ": flag --" + name + " needs a value");
    }
  }
}

bool Flags::Has(const std::string& name) const { return values_.count(name) != 0; }

std::string Flags::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

int64_t Flags::GetInt(const std::string& name, int64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  long long value = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0') {
    throw ConfigError(program_ + ": flag --" + name + " needs an integer, got '" + it->second +
                      "'");
  }
  return value;
}

std::string Flags::Require(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) {
    throw ConfigError(program_ + ": flag --" + name + " is required");
  }
  return it->second;
}

void Flags::CheckKnown(const std::set<std::string>& known) const {
  for (const auto& [name, value] : values_) {
    if (known.count(name) == 0) throw ConfigError(program_ + ": unknown flag --" + name);
  }
}

void SplitHostPort(const std::string& flag, const std::string& address, std::string* host,
                   int* port) {
  size_t colon = address.rfind(':');
  char* end = nullptr;
  long value = colon == std::string::npos ? -1 : std::strtol(address.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || colon == 0 || end == address.c_str() + colon + 1 ||
      *end != '\0' || value < 0 || value > 65535) {
    throw ConfigError("--" + flag + " '" + address + "': expected HOST:PORT");
  }
  *host = address.substr(0, colon);
  *port = static_cast<int>(value);
}

}  // namespace fleet
}  // namespace tessera
