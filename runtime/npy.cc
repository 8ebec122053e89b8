#include "runtime/npy.h"

#include <cstring>
#include <fstream>
#include <optional>

#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/read_file.h"

namespace tessera {
namespace runtime {
namespace {

struct NpyType {
  const char* descr;
  DLDataType dtype;
};

const NpyType kTypes[] = {
    {"<f4", MakeDataType(kDLFloat, 32)},
    {"<f8", MakeDataType(kDLFloat, 64)},
    {"<i8", MakeDataType(kDLInt, 64)},
    {"<i4", MakeDataType(kDLInt, 32)},
    // Bool arrays are read as bytes, the way compiled models store bool tensors.
    {"|u1", MakeDataType(kDLUInt, 8)},
    {"|i1", MakeDataType(kDLInt, 8)},
    {"|b1", MakeDataType(kDLUInt, 8)},
};

// The value of `key` in the header dictionary, e.g. 'descr': '<f4' gives "'<f4'".
std::string Field(const std::string& header, const std::string& key, const std::string& path) {
  size_t at = header.find("'" + key + "'");
  TESSERA_CHECK(at != std::string::npos) << path << ": the .npy header lacks '" << key << "'";
  size_t colon = header.find(':', at);
  size_t end = key == "shape" ? header.find(')', colon) + 1 : header.find(',', colon);
  std::string v = header.substr(colon + 1, end - colon - 1);
  v.erase(0, v.find_first_not_of(' '));
  return v;
}

}  // namespace

NDArray LoadNpy(const std::string& path) {
  const std::optional<std::string> file = ReadFileBytes(path);
  TESSERA_CHECK(file.has_value()) << path << ": cannot open the file";
  const std::string& bytes = *file;
  TESSERA_CHECK(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0)
      << path << ": not a .npy file";
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    header_start = 10;
  } else {
    TESSERA_CHECK(bytes.size() >= 12 && major <= 3) << path << ": unsupported .npy version";
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    header_start = 12;
  }
  TESSERA_CHECK(header_start + header_len <= bytes.size()) << path << ": truncated .npy header";
  const std::string header = bytes.substr(header_start, header_len);
  std::string descr = Field(header, "descr", path);
  TESSERA_CHECK(Field(header, "fortran_order", path).rfind("False", 0) == 0)
      << path << ": Fortran-order arrays are not supported (save with np.ascontiguousarray)";
  std::string shape_text = Field(header, "shape", path);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < shape_text.size();) {
    if (!isdigit(static_cast<unsigned char>(shape_text[i]))) {
      ++i;
      continue;
    }
    size_t used = 0;
    shape.push_back(std::stoll(shape_text.substr(i), &used));
    i += used;
  }
  const NpyType* type = nullptr;
  for (const NpyType& t : kTypes) {
    if (descr == std::string("'") + t.descr + "'") type = &t;
  }
  TESSERA_CHECK(type != nullptr) << path << ": dtype " << descr
                                 << " is not supported (float32, float64, int64, int32, uint8, "
                                    "bool; little-endian)";
  NDArray array = NDArray::Empty(shape, type->dtype, CPUDevice());
  const size_t data_start = header_start + header_len;
  TESSERA_CHECK(bytes.size() - data_start == array.NumBytes())
      << path << ": holds " << bytes.size() - data_start << " data bytes, the header says "
      << array.NumBytes() << " (" << descr << " " << ShapeToString(shape) << ")";
  array.CopyFromBytes(bytes.data() + data_start, array.NumBytes());
  return array;
}

void SaveNpy(const std::string& path, const NDArray& array) {
  const NpyType* type = nullptr;
  for (const NpyType& t : kTypes) {
    if (t.dtype == array.DataType()) type = &t;
  }
  TESSERA_CHECK(type != nullptr) << path << ": cannot write dtype "
                                 << DataTypeToString(array.DataType()) << " as .npy";
  std::string shape = "(";
  for (int64_t d : array.Shape()) shape += std::to_string(d) + ", ";
  if (array.Shape().size() > 1) shape.erase(shape.size() - 2);
  if (array.Shape().size() == 1) shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") + type->descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  TESSERA_CHECK(out.good()) << path << ": cannot write the file";
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out << header;
  std::string data(array.NumBytes(), '\0');
  array.CopyToBytes(data.data(), data.size());
  out << data;
  TESSERA_CHECK(out.good()) << path << ": writing failed";
}

}  // namespace runtime
}  // namespace tessera
