// What Tessera's aarch64 code executes against an Arm anchor (XNNPACK, Debian's arm64 build) on
// the same work, counted instruction by instruction under qemu-aarch64 (bench/arm/exec_counts.h):
// ResNet-18's 3x3 convolutions, a 1x1 convolution, a depthwise convolution and a 1024^3 matrix
// product. Each side runs its operator once and twice and the difference is counted, so loading,
// packing weights and setting up are left out of both; Tessera's count is also split by function
// of its kernel library (the operator's kernel, the layout changes of the one-operator model).
// Counts, not time: they are the same on every machine, and a board in the fleet confirms them as
// time.
//
//   bazel run -c opt //bench:arm_counts -- [--cases resnet18_3x3_56,matmul_1024]
//       [--target 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76'] [--db tuning.db] [--hot 3]
//   bazel run -c opt //bench:arm_counts -- --run -- PROGRAM [ARG...]   (count any aarch64 program)
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/arm/exec_counts.h"
#include "common/command_line.h"
#include "common/error.h"
#include "common/file.h"
#include "common/subprocess.h"
#include "deploy/artifact.h"

namespace tessera {
namespace {

using bench::CountExecution;
using bench::ExecCounts;
using bench::ExecProfile;

struct Case {
  std::string name;
  bool matmul = false;
  // Convolution: NCHW input, K output channels, a square kernel; matmul: M x K times K x N.
  int64_t batch = 1, channels = 0, height = 0, width = 0, out_channels = 0, kernel = 0;
  int64_t stride = 1, pad = 0, groups = 1;
  int64_t m = 0, n = 0, k = 0;
};

Case Conv(std::string name, int64_t c, int64_t hw, int64_t out, int64_t kernel, int64_t stride,
          int64_t groups = 1) {
  Case x;
  x.name = std::move(name);
  x.channels = c;
  x.height = x.width = hw;
  x.out_channels = out;
  x.kernel = kernel;
  x.stride = stride;
  x.pad = kernel / 2;
  x.groups = groups;
  return x;
}

std::vector<Case> AllCases() {
  Case matmul;
  matmul.name = "matmul_1024";
  matmul.matmul = true;
  matmul.m = matmul.n = matmul.k = 1024;
  return {Conv("resnet18_3x3_56", 64, 56, 64, 3, 1),
          Conv("resnet18_3x3_56s2", 64, 56, 128, 3, 2),
          Conv("resnet18_3x3_28", 128, 28, 128, 3, 1),
          Conv("resnet18_3x3_28s2", 128, 28, 256, 3, 2),
          Conv("resnet18_3x3_14", 256, 14, 256, 3, 1),
          Conv("resnet18_3x3_14s2", 256, 14, 512, 3, 2),
          Conv("resnet18_3x3_7", 512, 7, 512, 3, 1),
          Conv("pointwise_1x1_56", 64, 56, 256, 1, 1),
          Conv("depthwise_3x3_56", 144, 56, 144, 3, 1, 144),
          matmul};
}

double Flops(const Case& c) {
  if (c.matmul) return 2.0 * c.m * c.n * c.k;
  const int64_t oh = (c.height + 2 * c.pad - c.kernel) / c.stride + 1;
  const int64_t ow = (c.width + 2 * c.pad - c.kernel) / c.stride + 1;
  return 2.0 * c.batch * c.out_channels * oh * ow * (c.channels / c.groups) * c.kernel * c.kernel;
}

onnx::ValueInfoProto* AddFloatValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* to,
                                    const std::string& name, const std::vector<int64_t>& shape) {
  onnx::ValueInfoProto* v = to->Add();
  v->set_name(name);
  auto* tensor = v->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) tensor->mutable_shape()->add_dim()->set_dim_value(d);
  return v;
}

void AddWeights(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& shape,
                std::mt19937* rng) {
  onnx::TensorProto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : shape) {
    t->add_dims(d);
    n *= d;
  }
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  for (int64_t i = 0; i < n; ++i) t->add_float_data(dist(*rng));
}

// The case as a one-operator ONNX model (opset 13), its weights random.
void WriteModel(const Case& c, const std::string& path) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name("arm_counts");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(c.name);
  std::mt19937 rng(7);
  onnx::NodeProto* node = graph->add_node();
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  if (c.matmul) {
    node->set_op_type("MatMul");
    AddFloatValue(graph->mutable_input(), "x", {c.m, c.k});
    AddWeights(graph, "w", {c.k, c.n}, &rng);
    AddFloatValue(graph->mutable_output(), "y", {c.m, c.n});
  } else {
    node->set_op_type("Conv");
    node->add_input("b");
    auto ints = [&](const char* name, std::vector<int64_t> values) {
      onnx::AttributeProto* a = node->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : values) a->add_ints(v);
    };
    ints("kernel_shape", {c.kernel, c.kernel});
    ints("strides", {c.stride, c.stride});
    ints("pads", {c.pad, c.pad, c.pad, c.pad});
    onnx::AttributeProto* group = node->add_attribute();
    group->set_name("group");
    group->set_type(onnx::AttributeProto::INT);
    group->set_i(c.groups);
    const int64_t oh = (c.height + 2 * c.pad - c.kernel) / c.stride + 1;
    const int64_t ow = (c.width + 2 * c.pad - c.kernel) / c.stride + 1;
    AddFloatValue(graph->mutable_input(), "x", {c.batch, c.channels, c.height, c.width});
    AddWeights(graph, "w", {c.out_channels, c.channels / c.groups, c.kernel, c.kernel}, &rng);
    AddWeights(graph, "b", {c.out_channels}, &rng);
    AddFloatValue(graph->mutable_output(), "y", {c.batch, c.out_channels, oh, ow});
  }
  std::ofstream out(path, std::ios::binary);
  if (!model.SerializeToOstream(&out)) throw ExternalError("cannot write " + path);
}

struct Flags {
  std::vector<std::string> cases;
  std::string target = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76";
  std::string cpu = "cortex-a76";
  std::string db;
  int hot = 0;
  std::string tessera = "bazel-bin/cli/tessera";
  std::string runner = "bazel-bin/deploy/aarch64/tessera-run";
  std::string anchor = "bazel-bin/bench/arm/xnnpack_anchor";
  std::string qemu = "tools/qemu_aarch64.sh";
  bool run = false;
  std::vector<std::string> program;
};

void PrintHot(const ExecProfile& profile) {
  for (const bench::HotBlock& b : profile.hottest) {
    std::printf("    block at 0x%llx: %llu runs, %llu instructions\n",
                static_cast<unsigned long long>(b.pc),
                static_cast<unsigned long long>(b.executions),
                static_cast<unsigned long long>(b.instructions_executed));
    for (const std::string& line : b.disassembly) std::printf("      %s\n", line.c_str());
  }
}

// A function of the kernel library: its name and address range relative to the library.
struct Function {
  std::string name;
  uint64_t begin = 0, end = 0;
};

// The artifact's kernel library written to `so_path`, and its functions (from the cross nm).
std::vector<Function> KernelFunctions(const std::string& tsr, const std::string& so_path) {
  const deploy::Artifact artifact = deploy::ParseArtifact(deploy::ReadArtifactFile(tsr), tsr);
  if (artifact.header.kernel_format != deploy::kSharedLibraryKernels) {
    throw UserError(tsr + ": its kernels are not a shared library");
  }
  WriteFile(so_path, artifact.kernels, "the kernel library");
  ProgramResult nm = RunProgram({"aarch64-linux-gnu-nm", "--defined-only", "-S", "-n", so_path});
  if (!nm.ok()) throw ExternalError("aarch64-linux-gnu-nm " + so_path + ": " + nm.Describe());
  std::vector<Function> functions;
  std::istringstream lines(nm.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    // "ADDRESS SIZE TYPE NAME", or "ADDRESS TYPE NAME" without a size.
    const bool sized = f.size() == 4;
    if (f.size() < 3) continue;
    const std::string& type = f[sized ? 2 : 1];
    if (type != "t" && type != "T") continue;
    Function fn;
    fn.name = f.back();
    fn.begin = std::stoull(f[0], nullptr, 16);
    fn.end = sized ? fn.begin + std::stoull(f[1], nullptr, 16) : 0;
    if (!functions.empty() && functions.back().end == 0) functions.back().end = fn.begin;
    functions.push_back(fn);
  }
  if (!functions.empty() && functions.back().end == 0) functions.back().end = UINT64_MAX;
  return functions;
}

// Where the kernel library was mapped: the memfd (or temporary file) the runtime loads it from.
uint64_t KernelLibraryBase(const ExecProfile& profile) {
  for (const auto& [path, base] : profile.mapped_files) {
    const bool library =
        path.rfind("/proc/self/fd/", 0) == 0 ||
        (path.size() >= 11 && path.compare(path.size() - 11, 11, "/kernels.so") == 0);
    if (library) return base;
  }
  throw ExternalError(
      "the counted run never mapped its kernel library (no memfd or kernels.so "
      "mapped in qemu's system call log)");
}

struct FunctionCounts {
  std::string name;
  ExecCounts counts;
};

// The kernel a library function belongs to: "tsr_k1_conv2d_NCHWc_parallel_2" (a parallel loop's
// body) and "tsr_k1_conv2d_NCHWc" are kernel 1's, named "tsr_k1_conv2d_NCHWc".
std::string KernelOf(const std::string& function) {
  const size_t parallel = function.find("_parallel_");
  return parallel == std::string::npos ? function : function.substr(0, parallel);
}

// Each kernel's counts in `profile` (its functions together, most instructions first).
std::vector<FunctionCounts> PerKernelIn(const std::vector<Function>& functions,
                                        const ExecProfile& profile) {
  const uint64_t base = KernelLibraryBase(profile);
  std::vector<FunctionCounts> out;
  for (const Function& f : functions) {
    ExecCounts c = profile.CountsIn(base + f.begin, f.end == UINT64_MAX ? f.end : base + f.end);
    if (c.instructions == 0) continue;
    auto kernel = std::find_if(out.begin(), out.end(),
                               [&](const FunctionCounts& k) { return k.name == KernelOf(f.name); });
    if (kernel == out.end()) {
      out.push_back({KernelOf(f.name), c});
    } else {
      kernel->counts = kernel->counts + c;
    }
  }
  std::sort(out.begin(), out.end(), [](const FunctionCounts& a, const FunctionCounts& b) {
    return a.counts.instructions > b.counts.instructions;
  });
  return out;
}

// Per run, each kernel's counts, from a run of one and a run of two repeats.
std::vector<FunctionCounts> PerKernel(const std::vector<Function>& functions,
                                      const ExecProfile& one, const ExecProfile& two) {
  std::vector<FunctionCounts> out = PerKernelIn(functions, two);
  const std::vector<FunctionCounts> first = PerKernelIn(functions, one);
  for (FunctionCounts& k : out) {
    for (const FunctionCounts& f : first) {
      if (f.name == k.name) k.counts = k.counts - f.counts;
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const FunctionCounts& k) { return k.counts.instructions == 0; }),
            out.end());
  std::sort(out.begin(), out.end(), [](const FunctionCounts& a, const FunctionCounts& b) {
    return a.counts.instructions > b.counts.instructions;
  });
  return out;
}

// One run's counts: the difference of two counted runs of `argv_at(repeat)`, at 1 and 2 repeats.
struct Counted {
  ExecProfile one, two;
  ExecCounts per_run() const { return two.counts - one.counts; }
};

Counted PerRun(const Flags& flags, const std::function<std::vector<std::string>(int)>& argv_at,
               const char* side) {
  Counted counted;
  counted.one = CountExecution(flags.qemu, flags.cpu, argv_at(1));
  counted.two = CountExecution(flags.qemu, flags.cpu, argv_at(2), flags.hot);
  if (flags.hot > 0) {
    std::printf("  %s, hottest blocks over two runs:\n", side);
    PrintHot(counted.two);
  }
  return counted;
}

// The column names of PrintCounts' rows, `first` over the row names.
void PrintHeader(const char* first, bool flops) {
  std::printf("  %-9s %9s %9s %7s %9s %8s %8s %8s %8s %7s%s\n", first, "instr", "vec fma", "dot",
              "other ar", "v moves", "loads", "stores", "int+br", "fma%",
              flops ? "  flop/ins" : "");
}

void PrintCounts(const std::string& side, const ExecCounts& c, double flops,
                 const std::string& label = "") {
  auto m = [](uint64_t v) { return static_cast<double>(v) / 1e6; };
  std::printf("  %-9s %9.2f %9.2f %7.2f %9.2f %8.2f %8.2f %8.2f %8.2f %6.1f%%", side.c_str(),
              m(c.instructions), m(c.vector_fma), m(c.vector_dot), m(c.other_arithmetic),
              m(c.vector_moves), m(c.loads), m(c.stores), m(c.scalar + c.branches),
              100.0 * c.fma_share());
  if (flops > 0) {
    std::printf(" %9.2f", flops / static_cast<double>(std::max<uint64_t>(1, c.instructions)));
  }
  std::printf("%s%s\n", label.empty() ? "" : "  ", label.c_str());
}

// Binaries cross-built without their toolchain or libraries are placeholders saying so.
void CheckBuilt(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + " does not exist (build //bench:arm_counts with bazel)");
  std::string head(5, '\0');
  in.read(&head[0], 5);
  if (head == "SKIP:") {
    std::string reason;
    std::getline(in, reason);
    throw ExternalError(path + " was not built:" + reason + " (tools/setup.sh installs it)");
  }
}

int RunCases(const Flags& flags) {
  CheckBuilt(flags.runner);
  CheckBuilt(flags.anchor);
  std::vector<Case> cases;
  for (const Case& c : AllCases()) {
    if (flags.cases.empty() ||
        std::find(flags.cases.begin(), flags.cases.end(), c.name) != flags.cases.end()) {
      cases.push_back(c);
    }
  }
  TempDir dir("tessera-arm-counts");
  std::printf("qemu-aarch64 -cpu %s; target '%s'%s; counts in millions per run\n",
              flags.cpu.c_str(), flags.target.c_str(),
              flags.db.empty() ? " (untuned fallbacks)" : (" with " + flags.db).c_str());
  PrintHeader("side", /*flops=*/true);
  std::vector<double> ratios;
  for (const Case& c : cases) {
    std::printf("%s (%.1f MFLOP)\n", c.name.c_str(), Flops(c) / 1e6);
    std::fflush(stdout);
    const std::string onnx = dir.path() + "/" + c.name + ".onnx";
    const std::string tsr = dir.path() + "/" + c.name + ".tsr";
    WriteModel(c, onnx);
    std::vector<std::string> compile = {
        flags.tessera, "compile", onnx, "--target", flags.target + " -num-threads=1", "-o", tsr};
    if (!flags.db.empty()) {
      compile.push_back("--db");
      compile.push_back(flags.db);
    }
    ProgramResult compiled = RunProgram(compile);
    if (!compiled.ok()) {
      throw ExternalError("tessera compile of " + c.name + ": " + compiled.Describe() + "\n" +
                          compiled.output);
    }
    const Counted tessera = PerRun(
        flags,
        [&](int repeat) {
          return std::vector<std::string>{flags.runner, tsr,        "--threads",
                                          "1",          "--repeat", std::to_string(repeat)};
        },
        "tessera");
    const ExecCounts anchor =
        PerRun(
            flags,
            [&](int repeat) {
              const std::string runs = std::to_string(repeat);
              if (c.matmul) {
                return std::vector<std::string>{flags.anchor, "matmul",
                                                "-m",         std::to_string(c.m),
                                                "-n",         std::to_string(c.n),
                                                "-k",         std::to_string(c.k),
                                                "--repeat",   runs};
              }
              return std::vector<std::string>{flags.anchor,
                                              "conv",
                                              "--batch=" + std::to_string(c.batch),
                                              "--height=" + std::to_string(c.height),
                                              "--width=" + std::to_string(c.width),
                                              "--in-channels=" + std::to_string(c.channels),
                                              "--out-channels=" + std::to_string(c.out_channels),
                                              "--kernel=" + std::to_string(c.kernel),
                                              "--stride=" + std::to_string(c.stride),
                                              "--pad=" + std::to_string(c.pad),
                                              "--groups=" + std::to_string(c.groups),
                                              "--repeat=" + runs};
            },
            "xnnpack")
            .per_run();
    const ExecCounts ours = tessera.per_run();
    const std::vector<FunctionCounts> kernels = PerKernel(
        KernelFunctions(tsr, dir.path() + "/" + c.name + ".so"), tessera.one, tessera.two);
    ExecCounts in_kernels;
    for (const FunctionCounts& f : kernels) in_kernels = in_kernels + f.counts;
    PrintCounts("tessera", ours, Flops(c));
    PrintCounts(" kernels", in_kernels, Flops(c), "(the kernel library: its kernels below)");
    for (size_t i = 0; i < kernels.size() && i < 3; ++i) {
      PrintCounts("  " + std::to_string(i + 1), kernels[i].counts, 0, kernels[i].name);
    }
    PrintCounts("xnnpack", anchor, Flops(c));
    // The operator's own kernel (the library's busiest that is not a layout change) against the
    // anchor's whole run: the packing and unpacking around it are the one-operator model's, not a
    // model's middle layer's.
    auto layout_change = [](const FunctionCounts& k) {
      return k.name.find("_pack_") != std::string::npos ||
             k.name.find("_epilogue") != std::string::npos;
    };
    auto main_it = std::find_if(kernels.begin(), kernels.end(),
                                [&](const FunctionCounts& k) { return !layout_change(k); });
    if (main_it == kernels.end()) main_it = kernels.begin();
    const ExecCounts& main_kernel = main_it == kernels.end() ? ours : main_it->counts;
    const double ratio = static_cast<double>(main_kernel.instructions) /
                         static_cast<double>(std::max<uint64_t>(1, anchor.instructions));
    ratios.push_back(ratio);
    std::printf(
        "  instructions tessera/xnnpack: %.2f the operator's kernel (%s), %.2f the whole "
        "run\n",
        ratio, main_it == kernels.end() ? "-" : main_it->name.c_str(),
        static_cast<double>(ours.instructions) /
            static_cast<double>(std::max<uint64_t>(1, anchor.instructions)));
    std::fflush(stdout);
  }
  if (!ratios.empty()) {
    double log_sum = 0;
    for (double r : ratios) log_sum += std::log(r);
    std::printf("geometric mean of instructions tessera/xnnpack over %zu cases: %.2f, worst %.2f\n",
                ratios.size(), std::exp(log_sum / static_cast<double>(ratios.size())),
                *std::max_element(ratios.begin(), ratios.end()));
  }
  return 0;
}

int RunProgramCounted(const Flags& flags) {
  if (flags.program.empty()) throw UserError("--run: name the aarch64 program after --");
  std::string output;
  ExecProfile profile = CountExecution(flags.qemu, flags.cpu, flags.program, flags.hot, &output);
  std::fwrite(output.data(), 1, output.size(), stdout);
  PrintHeader("millions", /*flops=*/false);
  PrintCounts("program", profile.counts, 0);
  // A model artifact run by tessera-run: its kernels' shares, by the library's symbols.
  for (const std::string& arg : flags.program) {
    if (arg.size() < 4 || arg.compare(arg.size() - 4, 4, ".tsr") != 0) continue;
    TempDir dir("tessera-arm-counts");
    for (const FunctionCounts& k :
         PerKernelIn(KernelFunctions(arg, dir.path() + "/kernels.so"), profile)) {
      PrintCounts("  kernel", k.counts, 0, k.name);
    }
  }
  PrintHot(profile);
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  tessera::Flags flags;
  CLI::App app{"Executed aarch64 instructions of Tessera's kernels against XNNPACK's, under qemu"};
  std::vector<std::string> case_names;
  for (const tessera::Case& c : tessera::AllCases()) case_names.push_back(c.name);
  app.add_option("--cases", flags.cases, "cases to count (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(case_names));
  app.add_option("--target", flags.target, "Tessera's aarch64 target (-num-threads=1 is added)");
  app.add_option("--cpu", flags.cpu, "qemu's -cpu for both sides");
  app.add_option("--db", flags.db, "tuning log whose records the build uses (default: none)");
  app.add_option("--hot", flags.hot, "print the N blocks that executed the most instructions");
  app.add_option("--tessera", flags.tessera, "the tessera CLI");
  app.add_option("--runner", flags.runner, "the aarch64 tessera-run");
  app.add_option("--anchor", flags.anchor, "the aarch64 XNNPACK anchor");
  app.add_option("--qemu", flags.qemu, "qemu-aarch64 or a wrapper taking its options");
  app.add_flag("--run", flags.run, "count the aarch64 program given after -- instead");
  app.add_option("program", flags.program, "with --run: PROGRAM [ARG...]");
  // `bazel run` starts in the runfiles; the binaries' default paths are the workspace's.
  if (const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    if (chdir(workspace) != 0) std::cerr << "cannot enter " << workspace << "\n";
  }
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr, [&] {
    return flags.run ? tessera::RunProgramCounted(flags) : tessera::RunCases(flags);
  });
}
