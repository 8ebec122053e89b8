/// \file
/// The execution graph of a compiled model: what `GraphExecutor` runs. It lists the tensors
/// (each either a parameter, or a slice of one of the planned storage buffers), and the kernel
/// calls in order. It is written by the compiler and read by the runtime without protobuf or
/// JSON, as a small line-based text file:
///
///     tessera-exec-graph 1
///     storage <id> <bytes>
///     tensor <id> <name> <dtype> <shape: 1x3x224x224 or scalar> param|<storage id>
///     node <name> <function> <input ids, comma-separated or -> <output ids>
///     kernel <node index> <template workload> <config source> <FLOPs per call>   (version 2)
///     input <tensor id>
///     output <tensor id>
///
/// Names are percent-escaped (`EscapeName`). Parameters are looked up by tensor name in
/// the params file (`runtime/params.h`). A `kernel` line says what made a template kernel, for
/// profiles and reports; the runtime does not need it, and version 1 graphs have none.
#ifndef TESSERA_RUNTIME_EXEC_GRAPH_H_
#define TESSERA_RUNTIME_EXEC_GRAPH_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace runtime {

/// Version of the format written by `ExecGraph::ToText`.
constexpr int kExecGraphVersion = 2;

/// One tensor of the execution graph.
struct ExecTensor {
  std::string name;            ///< unique name (model inputs and outputs keep their names)
  DLDataType dtype{};          ///< element type
  std::vector<int64_t> shape;  ///< dimensions
  int storage = -1;            ///< storage buffer holding it from offset 0; -1: a parameter
};

/// One kernel call: `function(inputs..., outputs...)`.
struct ExecNode {
  std::string name;          ///< the graph node(s) it computes
  std::string function;      ///< kernel symbol in the library
  std::vector<int> inputs;   ///< tensor ids
  std::vector<int> outputs;  ///< tensor ids
  /// The template workload that made the kernel ("" for a default-scheduled one).
  std::string workload;
  /// Where its config came from ("record", "nearest record", "cost model", "fallback";
  /// `KernelConfig::source`).
  std::string source;
  double flops = 0;  ///< floating-point operations per call (0: not counted)
};

/// A compiled model's execution graph.
struct ExecGraph {
  std::vector<int64_t> storage_bytes;  ///< size of each planned buffer
  std::vector<ExecTensor> tensors;     ///< every tensor, by id
  std::vector<ExecNode> nodes;         ///< kernel calls in execution order
  std::vector<int> inputs;             ///< model inputs (tensor ids)
  std::vector<int> outputs;            ///< model outputs (tensor ids)

  /// The text form described above.
  std::string ToText() const;
  /// Parses the text form; throws `Error` naming `source` and the line for anything malformed
  /// or out of range, or a newer version.
  static ExecGraph Parse(const std::string& text, const std::string& source);
};

/// Percent-escapes the characters that would split a name in Tessera's line-based text formats
/// (space, tab, comma, '%', CR, LF), so any name is one word on its line.
std::string EscapeName(const std::string& name);

/// Inverse of `EscapeName`; throws `Error` naming `where` for a malformed escape.
std::string UnescapeName(const std::string& text, const std::string& where);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_EXEC_GRAPH_H_
