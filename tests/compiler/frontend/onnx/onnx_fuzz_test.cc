// Bounded random-mutation fuzzing of the importer and the graph passes: mutated small models
// (flipped, deleted, inserted and duplicated bytes; seeded) must import and optimize, or fail with
// a UserError; never crash, hang or throw anything else.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/graph/pipeline.h"
#include "compiler/support/error.h"

namespace tessera {
namespace frontend {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Mutate(std::string bytes, std::mt19937& rng) {
  std::uniform_int_distribution<int> kinds(0, 3), count(1, 8), byte(0, 255);
  for (int m = count(rng); m > 0 && !bytes.empty(); --m) {
    size_t at = std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng);
    switch (kinds(rng)) {
      case 0:
        bytes[at] = static_cast<char>(byte(rng));
        break;
      case 1:
        bytes.erase(at, std::min<size_t>(bytes.size() - at, count(rng)));
        break;
      case 2:
        bytes.insert(at, 1, static_cast<char>(byte(rng)));
        break;
      default:
        bytes.insert(at, bytes.substr(at, count(rng)));
        break;
    }
  }
  return bytes;
}

TEST(OnnxFuzzTest, MutatedModelsFailCleanly) {
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(base ? base : "/tmp") + "/fuzz";
  mkdir(dir.c_str(), 0755);
  ASSERT_EQ(std::system(
                ("/usr/bin/python3 tests/compiler/driver/models/make_op_models.py " + dir).c_str()),
            0);
  const std::vector<std::string> seeds = {"conv_bn_add_relu", "attention_block",
                                          "shapes_and_indexing", "pooling"};
  std::mt19937 rng(13);
  const std::string path = dir + "/mutant.onnx";
  int imported = 0, rejected = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (int i = 0; i < 2000 && std::chrono::steady_clock::now() < deadline; ++i) {
    std::string model = Read(dir + "/" + seeds[i % seeds.size()] + ".onnx");
    std::ofstream(path, std::ios::binary) << Mutate(model, rng);
    try {
      graph::Graph g = ImportOnnx(path);
      graph::OptimizeGraph(g);
      ++imported;
    } catch (const UserError&) {
      ++rejected;
    }
  }
  std::cout << imported << " mutants imported, " << rejected << " rejected with a message\n";
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace frontend
}  // namespace tessera
