/// \file
/// The importer's checks of a parsed model before it is read: the IR version and opsets it is
/// stamped with, the
/// ONNX checker with the failing node or value named, and graph outputs declared without a shape
/// (common in hand-built and converted models) given theirs by shape inference.
#ifndef TESSERA_COMPILER_FRONTEND_ONNX_MODEL_CHECKS_H_
#define TESSERA_COMPILER_FRONTEND_ONNX_MODEL_CHECKS_H_

#include <onnx/onnx_pb.h>

#include <string>

namespace tessera {
namespace frontend {

/// The name messages and the graph give node `index` of a graph: its own, else "OpType_index".
std::string NodeName(const onnx::NodeProto& node, int index);

/// The newest opset of `domain` ("" for the default domain) whose operator semantics the importer
/// knows (its libonnx's schema registry); -1 for a domain it does not know.
int NewestKnownOpset(const std::string& domain);

/// Throws `UserError` naming `path` and both versions when `model` is stamped with an ONNX IR
/// version newer than the one this build's libonnx reads (its checker would refuse the model with
/// a message that names neither the file nor a way out).
void CheckIrVersion(const onnx::ModelProto& model, const std::string& path);

/// Throws `UserError` naming `path`, the domain and both versions when `model` imports a known
/// domain at an opset newer than `NewestKnownOpset`: an operator's meaning may change between
/// opsets, so such a model cannot be read safely.
void CheckOpsets(const onnx::ModelProto& model, const std::string& path);

/// Gives every graph output declared without a shape (or element type) the one shape inference
/// finds for it. Throws `UserError` naming the output when inference finds none.
void InferMissingOutputTypes(onnx::ModelProto& model, const std::string& path);

/// Runs the ONNX checker; throws `UserError` naming `path`, and the node, value or initializer
/// the failure concerns, when it fails.
void RunChecker(const onnx::ModelProto& model, const std::string& path);

}  // namespace frontend
}  // namespace tessera

#endif  // TESSERA_COMPILER_FRONTEND_ONNX_MODEL_CHECKS_H_
