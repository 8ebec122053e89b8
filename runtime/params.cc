#include "runtime/params.h"

#include <cstring>
#include <fstream>
#include <optional>

#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/read_file.h"

namespace tessera {
namespace runtime {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'P', 'A', 'R', 'A', 'M', 'S'};

template <typename T>
void Put(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

class Reader {
 public:
  Reader(std::string_view bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  template <typename T>
  T Get(const std::string& what) {
    T value;
    Take(&value, sizeof(T), what);
    return value;
  }
  void Take(void* dst, size_t n, const std::string& what) {
    TESSERA_CHECK(n <= bytes_.size() - pos_)
        << source_ << ": truncated params file: " << what << " needs " << n << " bytes at offset "
        << pos_ << " but only " << (bytes_.size() - pos_) << " remain";
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  const std::string& source_;
  size_t pos_ = 0;
};

}  // namespace

std::string SaveParams(const std::map<std::string, NDArray>& params) {
  std::string out(kMagic, sizeof(kMagic));
  Put<uint32_t>(&out, kParamsFormatVersion);
  Put<uint64_t>(&out, params.size());
  for (const auto& [name, array] : params) {
    TESSERA_CHECK(array.defined()) << "SaveParams: array '" << name << "' is null";
    Put<uint64_t>(&out, name.size());
    out += name;
    DLDataType t = array.DataType();
    Put<uint8_t>(&out, t.code);
    Put<uint8_t>(&out, t.bits);
    Put<uint16_t>(&out, t.lanes);
    Put<uint32_t>(&out, static_cast<uint32_t>(array.NDim()));
    for (int64_t d : array.Shape()) Put<int64_t>(&out, d);
    Put<uint64_t>(&out, array.NumBytes());
    size_t at = out.size();
    out.resize(at + array.NumBytes());
    array.CopyToBytes(&out[at], array.NumBytes());
  }
  return out;
}

std::map<std::string, NDArray> LoadParams(std::string_view bytes, const std::string& source) {
  TESSERA_CHECK(bytes.size() >= sizeof(kMagic) &&
                std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0)
      << source << ": not a Tessera params file (bad magic)";
  Reader in(bytes, source);
  char magic[sizeof(kMagic)];
  in.Take(magic, sizeof(magic), "the magic");
  uint32_t version = in.Get<uint32_t>("the version");
  TESSERA_CHECK(version == kParamsFormatVersion)
      << source << ": params format version " << version << " is not supported (this runtime reads "
      << kParamsFormatVersion << ")";
  uint64_t count = in.Get<uint64_t>("the array count");
  std::map<std::string, NDArray> params;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string which = "array #" + std::to_string(i);
    uint64_t name_len = in.Get<uint64_t>("the name of " + which);
    TESSERA_CHECK(name_len <= in.remaining())
        << source << ": truncated params file: the name of " << which << " is cut off";
    std::string name(name_len, '\0');
    in.Take(&name[0], name_len, "the name of " + which);
    const std::string what = "array '" + name + "'";
    DLDataType t;
    t.code = in.Get<uint8_t>("the dtype of " + what);
    t.bits = in.Get<uint8_t>("the dtype of " + what);
    t.lanes = in.Get<uint16_t>("the dtype of " + what);
    uint32_t ndim = in.Get<uint32_t>("the rank of " + what);
    TESSERA_CHECK(ndim <= 64) << source << ": corrupt params file: " << what << " has rank "
                              << ndim;
    std::vector<int64_t> shape(ndim);
    for (auto& d : shape) {
      d = in.Get<int64_t>("the shape of " + what);
      TESSERA_CHECK(d >= 0) << source << ": corrupt params file: " << what
                            << " has a negative dimension";
    }
    uint64_t nbytes = in.Get<uint64_t>("the size of " + what);
    TESSERA_CHECK(nbytes <= in.remaining())
        << source << ": truncated params file: " << what << " needs " << nbytes
        << " bytes of data but only " << in.remaining() << " remain";
    NDArray array = NDArray::Empty(shape, t, CPUDevice());
    TESSERA_CHECK(array.NumBytes() == nbytes)
        << source << ": corrupt params file: " << what << " of shape " << ShapeToString(shape)
        << " " << DataTypeToString(t) << " stores " << nbytes << " bytes";
    in.Take(array->data, nbytes, "the data of " + what);
    params.emplace(name, array);
  }
  return params;
}

void SaveParamsToFile(const std::map<std::string, NDArray>& params, const std::string& path) {
  std::string bytes = SaveParams(params);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  TESSERA_CHECK(out.good()) << "cannot write params file '" << path << "'";
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  TESSERA_CHECK(out.good()) << "cannot write params file '" << path << "' (disk full?)";
}

std::map<std::string, NDArray> LoadParamsFromFile(const std::string& path) {
  const std::optional<std::string> bytes = ReadFileBytes(path);
  TESSERA_CHECK(bytes.has_value()) << "cannot open params file '" << path << "'";
  return LoadParams(*bytes, path);
}

}  // namespace runtime
}  // namespace tessera
