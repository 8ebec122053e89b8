#include "runtime/registry.h"

#include <map>
#include <mutex>

namespace tessera {
namespace runtime {
namespace {

struct Table {
  std::mutex mu;
  std::map<std::string, PackedFunc> funcs;
};

Table& GlobalTable() {
  static Table* table = new Table();  // never destroyed: registrations may run at exit
  return *table;
}

}  // namespace

void Registry::Register(const std::string& name, PackedFunc func, bool override) {
  TESSERA_CHECK(func.defined()) << "cannot register a null function as '" << name << "'";
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  TESSERA_CHECK(override || t.funcs.count(name) == 0)
      << "global function '" << name << "' is already registered";
  t.funcs[name] = std::move(func);
}

PackedFunc Registry::Get(const std::string& name) {
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.funcs.find(name);
  return it == t.funcs.end() ? PackedFunc() : it->second;
}

PackedFunc Registry::GetOrThrow(const std::string& name) {
  PackedFunc f = Get(name);
  TESSERA_CHECK(f.defined()) << "global function '" << name << "' is not registered";
  return f;
}

bool Registry::Remove(const std::string& name) {
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.funcs.erase(name) > 0;
}

std::vector<std::string> Registry::ListNames() {
  Table& t = GlobalTable();
  std::lock_guard<std::mutex> lock(t.mu);
  std::vector<std::string> names;
  for (const auto& entry : t.funcs) names.push_back(entry.first);
  return names;
}

}  // namespace runtime
}  // namespace tessera
