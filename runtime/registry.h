/// \file
/// The global function registry: named `PackedFunc`s reachable from the C API and over RPC.
/// Use it only at such boundaries; C++ modules call each other directly.
#ifndef TESSERA_RUNTIME_REGISTRY_H_
#define TESSERA_RUNTIME_REGISTRY_H_

#include <string>
#include <vector>

#include "runtime/packed_func.h"

namespace tessera {
namespace runtime {

/// Process-wide table of named functions; thread-safe.
class Registry {
 public:
  /// Registers `func` under `name`. Throws `Error` if the name is taken and `override` is false.
  static void Register(const std::string& name, PackedFunc func, bool override = false);
  /// The function named `name`, or a null `PackedFunc`.
  static PackedFunc Get(const std::string& name);
  /// The function named `name`; throws `Error` "global function 'name' is not registered".
  static PackedFunc GetOrThrow(const std::string& name);
  /// Removes `name`; returns whether it was registered.
  static bool Remove(const std::string& name);
  /// All registered names, sorted.
  static std::vector<std::string> ListNames();
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_REGISTRY_H_
