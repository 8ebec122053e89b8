#include "compiler/task/task.h"

#include <cctype>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "compiler/driver/vector_unit.h"
#include "compiler/support/error.h"

namespace tessera {
namespace task {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Larger arguments are no tensor anyone tunes; building their config spaces (divisors of each
// extent) would take hours instead of failing.
constexpr long long kMaxArgument = 1 << 24;

TaskArgs ParseArgs(const std::string& key, const std::string& text) {
  TaskArgs args;
  std::stringstream in(text);
  std::string item;
  std::vector<std::string> items;
  while (std::getline(in, item, ',')) items.push_back(Trim(item));
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& a = items[i];
    bool is_int = !a.empty() && (std::isdigit(static_cast<unsigned char>(a[0])) || a[0] == '-');
    if (is_int) {
      TESSERA_USER_CHECK(args.dtype.empty())
          << "workload '" << key << "': integer argument '" << a << "' after the dtype";
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(a, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      TESSERA_USER_CHECK(used == a.size())
          << "workload '" << key << "': argument " << i + 1 << " ('" << a << "') is not an integer";
      TESSERA_USER_CHECK(v <= kMaxArgument && v >= -kMaxArgument)
          << "workload '" << key << "': argument " << i + 1 << " (" << v << ") is larger than "
          << kMaxArgument;
      args.ints.push_back(v);
    } else {
      TESSERA_USER_CHECK(args.dtype.empty() && i + 1 == items.size() && !a.empty())
          << "workload '" << key << "': the dtype must be the last argument, got '" << a << "'";
      args.dtype = a;
    }
  }
  return args;
}

// Resolving `-mcpu=native` asks the kernel for the CPU's features: once per target string.
topi::VectorUnit VectorUnitOfTarget(const std::string& target) {
  static std::mutex mu;
  static std::map<std::string, topi::VectorUnit> known;
  std::lock_guard<std::mutex> lock(mu);
  auto found = known.find(target);
  if (found != known.end()) return found->second;
  topi::VectorUnit unit;
  try {
    unit = VectorUnitOf(Target(target));
  } catch (const UserError&) {
    // A bad target string is reported where the task is compiled, with its context; until then
    // the task only needs a fallback shape.
  }
  known.emplace(target, unit);
  return unit;
}

template <typename T>
ArgValues ValuesOf(ir::DataType dtype, const std::vector<T>& values) {
  ArgValues out;
  out.dtype = dtype;
  out.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
  return out;
}

template <typename T>
std::vector<float> FloatsOf(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return std::vector<float>(values.begin(), values.end());
}

}  // namespace

ArgValues ArgValues::Floats(const std::vector<float>& values) {
  return ValuesOf(ir::DataType::Float(32), values);
}

ArgValues ArgValues::Int32s(const std::vector<int32_t>& values) {
  return ValuesOf(ir::DataType::Int(32), values);
}

std::vector<float> ArgValues::ToFloats() const {
  if (dtype == ir::DataType::Float(32)) return FloatsOf<float>(bytes);
  TESSERA_INTERNAL_CHECK(dtype == ir::DataType::Int(32))
      << "argument values of type " << ir::ToString(dtype) << " have no float32 form";
  return FloatsOf<int32_t>(bytes);
}

std::string MakeWorkloadKey(const std::string& template_name, const TaskArgs& args) {
  std::ostringstream os;
  os << template_name << "(";
  for (size_t i = 0; i < args.ints.size(); ++i) os << (i ? "," : "") << args.ints[i];
  if (!args.dtype.empty()) os << (args.ints.empty() ? "" : ",") << args.dtype;
  os << ")";
  return os.str();
}

Task::Task(const std::string& workload_key, const std::string& target) : target_(target) {
  std::string key = Trim(workload_key);
  size_t open = key.find('(');
  TESSERA_USER_CHECK(open != std::string::npos && !key.empty() && key.back() == ')')
      << "workload '" << workload_key << "' must look like name(args), e.g. "
      << "dense.x86(1024,1024,1024,float32)";
  std::string name = Trim(key.substr(0, open));
  for (const TemplateDef& def : Templates()) {
    if (def.name == name) def_ = &def;
  }
  if (!def_) {
    std::ostringstream known;
    for (const TemplateDef& def : Templates()) known << " " << def.name << def.args_help;
    TESSERA_USER_ERROR() << "workload '" << workload_key << "': unknown template '" << name
                         << "' (known:" << known.str() << ")";
  }
  args_ = ParseArgs(workload_key, key.substr(open + 1, key.size() - open - 2));
  try {
    def_->validate(args_);
  } catch (const UserError& e) {
    TESSERA_USER_ERROR() << "workload '" << workload_key << "': " << e.what();
  }
  TESSERA_USER_CHECK(!target.empty()) << "task '" << workload_key << "' needs a target";
  key_ = MakeWorkloadKey(def_->name, args_);
  vector_unit_ = VectorUnitOfTarget(target);
  space_ = def_->space(args_, vector_unit_);
}

topi::ScheduledOp Task::Instantiate(const space::ConfigEntity& config) const {
  return def_->instantiate(args_, config);
}

double Task::flops() const { return def_->instantiate(args_, space_.Fallback()).flops; }

}  // namespace task
}  // namespace tessera
