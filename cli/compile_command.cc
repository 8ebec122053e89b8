// `tessera compile`: an ONNX model in, the one-file artifact out (made by compiler/driver from the
// build), or the build's model directory as a debug view (kernel library, execution graph,
// parameters), with the tuning log's best records where it has them.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "common/command_line.h"
#include "common/error.h"
#include "compiler/driver/bucket_build.h"
#include "compiler/driver/build_model.h"
#include "compiler/driver/model_artifact.h"
#include "compiler/driver/model_plan.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/graph/graph.h"
#include "deploy/artifact.h"
#include "fleet/client/log_client.h"
#include "records/record_source.h"
#include "runtime/error.h"
#include "tuner/tune/apply_history.h"

namespace tessera {
namespace cli {
namespace {

struct CompileFlags {
  std::string model, target, db, output;
  std::string token_file, tls_ca;  // with --db tracker://HOST:PORT
  std::vector<std::string> input_shapes;
  std::vector<int64_t> batch;  // batch buckets
  std::string batch_dim;
  double min_coverage = 0;  // percent of template FLOPs that must be tuned
  bool print_graph = false;
  bool print_configs = false;
  bool print_plan = false;
};

// "-o model.tsr" asks for the one-file artifact; any other name is a model directory.
bool IsArtifactPath(const std::string& path) {
  return path.size() > 4 && path.compare(path.size() - 4, 4, ".tsr") == 0;
}

// The import options of `flags`, building a symbolic batch with `batch` (0: as 1, with a note).
frontend::OnnxImportOptions ImportOptions(const CompileFlags& flags, int64_t batch) {
  frontend::OnnxImportOptions options = frontend::ImportOptionsWithShapes(flags.input_shapes);
  options.batch = batch;
  options.batch_dim = flags.batch_dim;
  return options;
}

// A CI build that would ship untuned kernels stops before writing anything.
void CheckCoverage(const CompileFlags& flags, const ModelBuild& build, const std::string& bucket) {
  if (build.TunedFlopsPercent() >= flags.min_coverage) return;
  char percent[32];
  std::snprintf(percent, sizeof(percent), "%.1f%%", build.TunedFlopsPercent());
  std::cout << build.CoverageLine() << "\n";
  std::cerr << "error: " << flags.model << bucket << ": " << percent
            << " of the template FLOPs are tuned, below --min-coverage " << flags.min_coverage
            << "; nothing written (`tessera tune " << flags.model
            << "` with the same --target and log tunes the untuned tasks)\n";
  throw CLI::RuntimeError(1);
}

void PrintConfigs(const ModelBuild& build) {
  for (const KernelConfig& c : build.configs) {
    std::cout << c.node << "  " << c.workload_key << "  " << c.config << "  (" << c.source << ")\n";
  }
}

std::string Summary(const ModelBuild& build) {
  int64_t param_bytes = 0;
  for (const auto& [name, array] : build.params) param_bytes += array.NumBytes();
  std::ostringstream os;
  os << build.graph.nodes.size() << " kernel calls, " << param_bytes / 1e6 << " MB of parameters, "
     << build.planned_bytes / 1e6 << " MB of activations planned (" << build.unplanned_bytes / 1e6
     << " MB without reuse)";
  return os.str();
}

// One artifact holding a build per batch bucket.
void CompileBuckets(const CompileFlags& flags, const ModelBuildOptions& options,
                    std::chrono::steady_clock::time_point start) {
  TESSERA_USER_CHECK(IsArtifactPath(flags.output))
      << "--batch writes one artifact of every bucket: -o NAME.tsr (a model directory holds one "
      << "batch size)";
  const BucketedBuild buckets =
      BuildBuckets(flags.model, ImportOptions(flags, 0), flags.batch, options,
                   [&](int64_t batch, const ModelBuild& build) {
                     CheckCoverage(flags, build, " (batch " + std::to_string(batch) + ")");
                     std::cout << "batch " << batch << ": " << Summary(build) << "\n"
                               << "batch " << batch << ": " << build.CoverageLine() << "\n";
                     if (flags.print_configs) PrintConfigs(build);
                   });
  const deploy::Artifact artifact = buckets.MakeArtifact(flags.target);
  try {
    deploy::SaveArtifact(artifact, flags.output);
  } catch (const runtime::Error& e) {
    throw UserError(e.what());
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::string list;
  for (int64_t b : buckets.batches) list += (list.empty() ? "" : ",") + std::to_string(b);
  std::cout << "compiled " << flags.model << " for '" << flags.target << "' into " << flags.output
            << " in " << took.count() << " s: batch buckets " << list << ", "
            << artifact.params.size() / 1e6 << " MB of parameters stored once\n";
}

void Compile(const CompileFlags& flags) {
  auto start = std::chrono::steady_clock::now();
  if (fleet::TrackerLogAddress(flags.db).empty() &&
      (!flags.token_file.empty() || !flags.tls_ca.empty())) {
    throw UserError("--token-file and --tls-ca go with --db tracker://HOST:PORT");
  }
  TESSERA_USER_CHECK(flags.batch_dim.empty() || !flags.batch.empty())
      << "--batch-dim names the dimension --batch sets: give --batch too";
  const std::unique_ptr<records::RecordSource> log =
      fleet::OpenRecordSource(flags.db, flags.token_file, flags.tls_ca);
  const tuner::LogConfigSource configs(log.get());
  ModelBuildOptions options;
  options.target = flags.target;
  options.configs = &configs;
  if (flags.print_graph) {
    options.after_pass = [](const std::string& pass, const graph::Graph& g) {
      std::cout << "// after " << pass << "\n" << graph::ToText(g);
    };
  }
  if (!flags.batch.empty()) {
    TESSERA_USER_CHECK(!flags.print_plan) << "--print-plan prints one build: leave out --batch";
    CompileBuckets(flags, options, start);
    return;
  }
  graph::Graph g = frontend::ImportOnnx(flags.model, ImportOptions(flags, 0));
  if (flags.print_graph) std::cout << "// imported\n" << graph::ToText(g);
  const ModelPlan plan = PlanModel(std::move(g), options);
  if (flags.print_plan) std::cout << plan.ToText();
  ModelBuild build = EmitModel(plan, options);
  CheckCoverage(flags, build, "");
  if (IsArtifactPath(flags.output)) {
    SaveModelArtifact(build, flags.target, flags.output);
  } else {
    build.Save(flags.output);
  }
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::cout << "compiled " << flags.model << " for '" << flags.target << "' into " << flags.output
            << " in " << took.count() << " s: " << Summary(build) << "\n"
            << build.CoverageLine() << "\n";
  if (flags.print_configs) PrintConfigs(build);
}

}  // namespace

void AddCompileCommand(CLI::App& app) {
  auto flags = std::make_shared<CompileFlags>();
  CLI::App* compile = app.add_subcommand(
      "compile",
      "Compile an ONNX model into one deployable artifact (-o model.tsr) or a directory, which "
      "`tessera run` and `tessera-run` load.");
  compile->add_option("model", flags->model, "the .onnx file")->required();
  compile->add_option("--target", flags->target, "target string, e.g. 'llvm -mcpu=native'")
      ->required();
  compile->add_option("--db", flags->db,
                      "tuning log whose best records to use: a SQLite file, "
                      "postgresql://USER@HOST/DB, or tracker://HOST:PORT for the tracker's "
                      "shared log");
  compile->add_option("--token-file", flags->token_file,
                      "the fleet's shared token (with --db tracker://)");
  compile->add_option("--tls-ca", flags->tls_ca,
                      "PEM root certificate of a TLS tracker (with --db tracker://)");
  compile->add_option("--input-shape", flags->input_shapes,
                      "static shape of an input, NAME:1x3x224x224 (repeatable)");
  compile
      ->add_option("--batch,--batch-buckets", flags->batch,
                   "batch buckets of a model with a symbolic batch, e.g. 1,4,16: one artifact "
                   "holds a build of each and runs any batch (the smallest bucket that holds it, "
                   "else chunks of the largest)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  compile->add_option("--batch-dim", flags->batch_dim,
                      "the name of the symbolic dimension that is the batch (default: the "
                      "inputs' symbolic first dimension)");
  compile
      ->add_option("--min-coverage", flags->min_coverage,
                   "fail (exit 1, nothing written) when less than this percentage of the "
                   "template FLOPs have tuning records, e.g. 90 in a CI build")
      ->check(CLI::Range(0.0, 100.0));
  compile->add_flag("--print-graph", flags->print_graph, "print the graph after each pass");
  compile->add_flag("--print-plan", flags->print_plan,
                    "print the build's plan: each fused group's kernel, template workload, "
                    "config and its source, layouts and halos, then the blocked values and the "
                    "tasks");
  compile->add_flag("--print-configs", flags->print_configs,
                    "print the config of every template kernel and where it came from: "
                    "the log's record, that record reading its producer's channel block, the "
                    "record of the nearest tuned shape, the cost model's choice, or the fallback");
  compile
      ->add_option("-o,--output", flags->output,
                   "output: NAME.tsr writes one deployable artifact, anything else a directory")
      ->required();
  compile->callback([flags] { Compile(*flags); });
}

}  // namespace cli
}  // namespace tessera
