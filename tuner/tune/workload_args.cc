#include "tuner/tune/workload_args.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "records/tuning_log.h"

namespace tessera {
namespace tuner {

WorkloadArgs ArgsOf(const std::string& workload_key) {
  WorkloadArgs args;
  args.templ = records::TemplateOfWorkload(workload_key);
  const size_t open = workload_key.find('(');
  const size_t close = workload_key.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return args;
  std::istringstream list(workload_key.substr(open + 1, close - open - 1));
  for (std::string arg; std::getline(list, arg, ',');) {
    char* end = nullptr;
    const double value = std::strtod(arg.c_str(), &end);
    if (!arg.empty() && end && *end == '\0') {
      args.numbers.push_back(value);
    } else {
      args.others += arg + ",";
    }
  }
  return args;
}

namespace {

bool Comparable(const WorkloadArgs& a, const WorkloadArgs& b) {
  return a.templ == b.templ && a.others == b.others && a.numbers.size() == b.numbers.size();
}

}  // namespace

double ShapeDistance(const WorkloadArgs& a, const WorkloadArgs& b) {
  if (!Comparable(a, b)) return std::numeric_limits<double>::infinity();
  double distance = 0;
  for (size_t i = 0; i < a.numbers.size(); ++i) {
    distance +=
        std::fabs(std::log1p(std::fabs(a.numbers[i])) - std::log1p(std::fabs(b.numbers[i])));
  }
  return distance;
}

int DifferingNumbers(const WorkloadArgs& a, const WorkloadArgs& b) {
  if (!Comparable(a, b)) return -1;
  int differing = 0;
  for (size_t i = 0; i < a.numbers.size(); ++i) differing += a.numbers[i] != b.numbers[i];
  return differing;
}

}  // namespace tuner
}  // namespace tessera
