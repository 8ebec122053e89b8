/// \file
/// The ONNX importer: reads a `.onnx` file with Debian's libonnx (weights may live in external
/// data files next to it), refuses opsets newer than libonnx knows, gives graph outputs declared
/// without a shape the inferred one, runs the ONNX checker and shape inference, converts other
/// opsets to opset 13 where the version converter can, and builds the graph IR. Every unsupported
/// operator or attribute value is reported at once, each with its op type, node name and opset.
#ifndef TESSERA_COMPILER_FRONTEND_ONNX_ONNX_IMPORTER_H_
#define TESSERA_COMPILER_FRONTEND_ONNX_ONNX_IMPORTER_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace tessera {
namespace frontend {

/// The opset models are converted to.
constexpr int kOnnxOpset = 13;

/// Knobs of the importer.
struct OnnxImportOptions {
  /// Static shapes for inputs (replacing the model's, e.g. symbolic batch dimensions).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  /// Where the importer's notes go (an input's symbolic batch built as 1); null: std::cerr.
  std::ostream* notes = nullptr;
  /// The batch to build a model's symbolic batch dimension with (a batch bucket, `--batch`);
  /// 0: 1, with a note.
  int64_t batch = 0;
  /// The name of the symbolic dimension that is the batch, wherever it stands in an input
  /// (`--batch-dim`); empty: the symbolic first dimension of the inputs.
  std::string batch_dim;
};

/// Reads the model at `path`. An input whose first dimension is symbolic (the batch of a model
/// exported with dynamic axes; with `batch_dim`, every dimension of that name) and not fixed by
/// `input_shapes` is built with `batch`, or with batch 1 and a note saying so. With `batch` set,
/// a model without such a dimension is an error. Throws `UserError` naming the file (and the node
/// or tensor) for a missing, truncated or corrupt file, an opset newer than the importer knows, a
/// model that fails the checker or shape inference, a missing external data file, an input with
/// another symbolic dimension (naming it and `--input-shape`), or unsupported operators.
graph::Graph ImportOnnx(const std::string& path, const OnnxImportOptions& options = {});

/// Parses "NAME:1x3x224x224" into (name, shape); throws `UserError` quoting a malformed spec.
std::pair<std::string, std::vector<int64_t>> ParseInputShape(const std::string& spec);

/// Import options fixing the inputs' shapes from `specs` (each as `ParseInputShape` reads it,
/// e.g. the `--input-shape` flags of the command line).
OnnxImportOptions ImportOptionsWithShapes(const std::vector<std::string>& specs);

}  // namespace frontend
}  // namespace tessera

#endif  // TESSERA_COMPILER_FRONTEND_ONNX_ONNX_IMPORTER_H_
