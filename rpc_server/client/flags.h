/// \file
/// A small command-line flag parser shared by the fleet daemons and the `tessera` command:
/// `--name value`, `--name=value`, and switches without a value.
#ifndef TESSERA_RPC_SERVER_CLIENT_FLAGS_H_
#define TESSERA_RPC_SERVER_CLIENT_FLAGS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tessera {
namespace fleet {

/// Parsed flags of one program. Errors are `ConfigError`s naming the program and the flag.
class Flags {
 public:
  /// Parses `args` for `program`; names in `switches` take no value. Throws `ConfigError` for a
  /// positional argument or a missing value.
  Flags(std::string program, const std::vector<std::string>& args,
        const std::set<std::string>& switches = {});
  /// True when `--name` was given.
  bool Has(const std::string& name) const;
  /// The value of `--name`, or `fallback`.
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  /// The value of `--name` as an integer, or `fallback`; throws `ConfigError` for a non-number.
  int64_t GetInt(const std::string& name, int64_t fallback) const;
  /// The value of `--name`; throws `ConfigError` when it was not given.
  std::string Require(const std::string& name) const;
  /// Throws `ConfigError` naming the first flag not in `known`.
  void CheckKnown(const std::set<std::string>& known) const;

 private:
  std::string program_;
  std::map<std::string, std::string> values_;
};

/// Splits "HOST:PORT" (the port after the last colon); throws `ConfigError` naming `flag`.
void SplitHostPort(const std::string& flag, const std::string& address, std::string* host,
                   int* port);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_CLIENT_FLAGS_H_
