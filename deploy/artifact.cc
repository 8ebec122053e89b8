// The signatures an artifact header gives, and loading an artifact (mapped, its
// sections used in place) into a ready executor after every check.
#include "deploy/artifact.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string_view>

#include "deploy/artifact_view.h"
#include "deploy/kernel_library.h"
#include "runtime/cuda_devices.h"
#include "runtime/cuda_module.h"
#include "runtime/device_api.h"
#include "runtime/error.h"
#include "runtime/params.h"

namespace tessera {
namespace deploy {
namespace {

bool SameSignatures(const std::vector<TensorSignature>& a, const std::vector<TensorSignature>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].shape != b[i].shape || a[i].dtype.code != b[i].dtype.code ||
        a[i].dtype.bits != b[i].dtype.bits || a[i].dtype.lanes != b[i].dtype.lanes) {
      return false;
    }
  }
  return true;
}

// CUDA kernels run on GPU 0: it must exist, and (with `-arch=sm_NN` in the target) be at least
// sm_NN (exactly, for an arch-specific sm_NNa).
void CheckCUDADevice(const ArtifactHeader& header, const std::string& source) {
  try {
    runtime::DeviceAPI::Get(DLDevice{kDLCUDA, 0});
  } catch (const runtime::Error& e) {
    throw runtime::Error(source + ": " + e.what() + " (its kernels, target '" + header.target +
                         "', run on a CUDA GPU)");
  }
  const size_t at = header.target.find("-arch=sm_");
  if (at == std::string::npos) return;
  const std::string arch = header.target.substr(at + 6, header.target.find(' ', at) - at - 6);
  const int wanted = std::atoi(arch.c_str() + 3);
  const bool specific = !arch.empty() && arch.back() == 'a';
  const int have = runtime::CUDAComputeCapability(0);
  if (have > 0 && (have < wanted || (specific && have != wanted))) {
    const std::string gpu = "sm_" + std::to_string(have);
    throw runtime::Error(source + ": the kernels are built for " + arch + " (target '" +
                         header.target + "'), but GPU 0 is " + gpu + ": compile with -arch=" + gpu +
                         (specific ? "" : " or lower"));
  }
}

}  // namespace

std::string ReadArtifactFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in.good()) throw runtime::Error(path + ": cannot read the file");
  // One read of the known size: models are tens of megabytes.
  const std::streamoff size = in.tellg();
  if (size < 0) throw runtime::Error(path + ": cannot read the file (not a regular file?)");
  std::string bytes(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(&bytes[0], size);
  if (in.gcount() != size) throw runtime::Error(path + ": reading failed");
  return bytes;
}

void SaveArtifact(const Artifact& artifact, const std::string& path) {
  std::string bytes = SerializeArtifact(artifact);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out.good()) throw runtime::Error(path + ": cannot write the artifact");
}

std::vector<TensorSignature> TensorSignatures(const runtime::ExecGraph& graph,
                                              const std::vector<int>& ids) {
  std::vector<TensorSignature> out;
  for (int id : ids) {
    const runtime::ExecTensor& t = graph.tensors.at(static_cast<size_t>(id));
    out.push_back({t.name, t.dtype, t.shape});
  }
  return out;
}

namespace {

// `list` at batch `batch` (the signatures of a model of fixed shapes as they are).
std::vector<TensorSignature> AtBatch(const std::vector<TensorSignature>& list, int64_t batch) {
  std::vector<TensorSignature> out;
  for (const TensorSignature& t : list) out.push_back(t.AtBatch(batch));
  return out;
}

// The executor of one bucket's graph and kernels (`batch` 0: a model of fixed shapes).
runtime::GraphExecutor LoadBucket(const ArtifactHeader& header, std::string_view kernels_bytes,
                                  std::string_view graph_text,
                                  const std::map<std::string, runtime::NDArray>& params,
                                  int64_t batch, const std::string& source) {
  const std::string where = batch > 0 ? " (batch " + std::to_string(batch) + ")" : "";
  runtime::ExecGraph graph =
      runtime::ExecGraph::Parse(std::string(graph_text), source + " (graph" + where + ")");
  if (!SameSignatures(TensorSignatures(graph, graph.inputs), AtBatch(header.inputs, batch)) ||
      !SameSignatures(TensorSignatures(graph, graph.outputs), AtBatch(header.outputs, batch))) {
    throw runtime::Error(source +
                         ": corrupt artifact: the header's inputs or outputs differ from " +
                         "the graph's" + where);
  }
  if (header.kernel_format == kCUDAKernels) {
    runtime::Module kernels =
        runtime::ParseCUDAModule(kernels_bytes, source + " (kernels" + where + ")");
    CheckCUDADevice(header, source);
    return runtime::GraphExecutor(std::move(graph), params, kernels, DLDevice{kDLCUDA, 0});
  }
  runtime::Module kernels = header.kernel_format == kCSourceKernels
                                ? CompileKernelSource(kernels_bytes, source)
                                : LoadKernelLibrary(kernels_bytes, source);
  return runtime::GraphExecutor(std::move(graph), params, kernels);
}

LoadedModel LoadArtifactView(std::string_view bytes, const std::string& source,
                             const HostInfo& host) {
  ArtifactView a = ParseArtifactView(bytes, source);
  CheckRunsOn(a.header, host, source);
  auto params = runtime::LoadParams(a.params, source + " (params)");
  const std::vector<int64_t>& buckets = a.header.batch_buckets;
  LoadedModel model{
      a.header,
      LoadBucket(a.header, a.kernels, a.graph, params, buckets.empty() ? 0 : buckets[0], source),
      {}};
  for (size_t b = 0; b < a.other_buckets.size(); ++b) {
    model.other_buckets.push_back(LoadBucket(a.header, a.other_buckets[b].kernels,
                                             a.other_buckets[b].graph, params, buckets[b + 1],
                                             source));
  }
  return model;
}

// A read-only private mapping of a whole regular file; empty when the file is not one.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* data = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (data != MAP_FAILED) {
        data_ = static_cast<const char*>(data);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool mapped() const { return data_ != nullptr; }
  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

LoadedModel LoadArtifactBytes(const std::string& bytes, const std::string& source,
                              const HostInfo& host) {
  return LoadArtifactView(bytes, source, host);
}

LoadedModel LoadArtifact(const std::string& path, const HostInfo& host) {
  MappedFile file(path);
  // What cannot be mapped (an empty file, a pipe, a directory) is read, with read's messages.
  if (!file.mapped()) return LoadArtifactBytes(ReadArtifactFile(path), path, host);
  return LoadArtifactView(file.bytes(), path, host);
}

}  // namespace deploy
}  // namespace tessera
