#include "tests/tuner/testing/synthetic_dense.h"

#include <cmath>
#include <limits>

#include "compiler/space/config_proto.h"

namespace tessera {
namespace testing {
namespace {

double Squared(double x) { return x * x; }

// Deterministic noise in [-1, 1] from the config's choices.
double Noise(const space::ConfigEntity& config) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t c : config.choices()) {
    h ^= static_cast<uint64_t>(c) + 0x9e3779b97f4a7c15ull;
    h *= 1099511628211ull;
  }
  return static_cast<double>(h % 2001) / 1000.0 - 1.0;
}

}  // namespace

std::string SyntheticDense::WorkloadKey() const {
  return "dense.x86(" + std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k) +
         ",float32)";
}

space::ConfigSpace SyntheticDense::Space() const {
  space::ConfigSpace s;
  s.DefineSplit("tile_y", m, {space::SplitPolicy::kFactors, 3, 64});
  s.DefineSplit("tile_x", n, {space::SplitPolicy::kFactors, 3, 64});
  s.DefineSplit("tile_k", k, {space::SplitPolicy::kFactors, 2, 0});
  s.DefineKnob("unroll", {0, 4, 16});
  return s;
}

double SyntheticDense::Cost(const space::ConfigEntity& config) const {
  auto y = config.Split("tile_y");
  auto x = config.Split("tile_x");
  auto kk = config.Split("tile_k");
  double yi = std::log2(static_cast<double>(y[2])), ym = std::log2(static_cast<double>(y[1]));
  double xi = std::log2(static_cast<double>(x[2])), xm = std::log2(static_cast<double>(x[1]));
  double ki = std::log2(static_cast<double>(kk[1]));
  // A register tile wider than 32 lanes spills: such configs "fail to build" here.
  if (xi + yi > 9) return std::numeric_limits<double>::infinity();
  double slowdown = 1.0;
  slowdown += 0.30 * Squared(xi - 4);       // two vectors of 8 lanes
  slowdown += 0.20 * Squared(yi - 2);       // four rows of registers
  slowdown += 0.05 * Squared(xm + xi - 6);  // the packed block of N
  slowdown += 0.05 * Squared(ym + yi - 5);  // the block of M
  slowdown += 0.08 * Squared(ki - 7);       // the K panel in cache
  int64_t unroll = config.Value("unroll");
  slowdown += unroll == 4 ? 0.0 : (unroll == 16 ? 0.15 : 0.3);
  slowdown *= 1.0 + 0.02 * Noise(config);
  double flops = 2.0 * static_cast<double>(m * n * k);
  return flops / 100e9 * slowdown;
}

tuning::MeasureRecord SyntheticDense::Record(const space::ConfigEntity& config,
                                             const std::string& target) const {
  tuning::MeasureRecord r;
  r.set_workload_key(WorkloadKey());
  r.set_target(target);
  r.set_device_key("local");
  r.set_config_index(config.index());
  *r.mutable_config() = space::ConfigToProto(config);
  double cost = Cost(config);
  if (std::isfinite(cost)) {
    r.add_costs(cost);
  } else {
    r.set_error_kind(tuning::COMPILE_ERROR);
    r.set_error_message("register tile too large");
  }
  r.set_tuner_version("test");
  return r;
}

}  // namespace testing
}  // namespace tessera
