// The artifact's bytes: a fixed prefix (magic, format version, header size, file size, checksum),
// the header as line-based text, then three length-prefixed sections (kernels, graph, params).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "deploy/artifact.h"
#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/exec_graph.h"

namespace tessera {
namespace deploy {
namespace {

constexpr size_t kPrefixBytes = 32;  // magic 8, version 4, header size 4, file size 8, checksum 8
// A header is a few lines per input and output; anything larger is not one of ours.
constexpr uint32_t kMaxHeaderBytes = 1 << 20;

// FNV-1a, 64 bits: catches flipped and cut bytes (it is not a signature against tampering).
uint64_t Checksum(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out->append(bytes, sizeof(T));
}

template <typename T>
T Get(const std::string& in, size_t at) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  }
  return value;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "x" : "") + std::to_string(shape[i]);
  return out;
}

std::string Join(const std::vector<std::string>& items) {
  if (items.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out;
}

std::string HeaderText(const ArtifactHeader& h) {
  std::ostringstream out;
  out << "tessera-version " << h.tessera_version << "\n"
      << "target " << h.target << "\n"
      << "arch " << h.arch << "\n"
      << "cpu-features " << Join(h.cpu_features) << "\n";
  for (const auto* list : {&h.inputs, &h.outputs}) {
    for (const TensorSignature& t : *list) {
      out << (list == &h.inputs ? "input " : "output ") << runtime::DataTypeToString(t.dtype) << " "
          << ShapeText(t.shape) << " " << runtime::EscapeName(t.name) << "\n";
    }
  }
  return out.str();
}

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& source) : source_(source) {}

  ArtifactHeader Parse(const std::string& text, uint32_t version) {
    ArtifactHeader h;
    h.format_version = version;
    std::istringstream lines(text);
    std::string line;
    bool seen_target = false, seen_arch = false;
    while (std::getline(lines, line)) {
      ++line_no_;
      size_t space = line.find(' ');
      Check(space != std::string::npos, "expected 'KEY VALUE'");
      std::string key = line.substr(0, space), value = line.substr(space + 1);
      if (key == "tessera-version") {
        h.tessera_version = value;
      } else if (key == "target") {
        h.target = value, seen_target = true;
      } else if (key == "arch") {
        Check(!value.empty(), "empty architecture");
        h.arch = value, seen_arch = true;
      } else if (key == "cpu-features") {
        if (value != "-") h.cpu_features = Split(value, ',');
      } else if (key == "input" || key == "output") {
        (key == "input" ? h.inputs : h.outputs).push_back(Signature(value));
      } else {
        Check(false, "unknown key '" + key + "'");
      }
    }
    line_no_ = 0;
    Check(seen_target && seen_arch, "the header lacks the target or the architecture");
    return h;
  }

 private:
  void Check(bool ok, const std::string& what) const {
    if (ok) return;
    throw runtime::Error(source_ + ": corrupt artifact header" +
                         (line_no_ ? " (line " + std::to_string(line_no_) + ")" : "") + ": " +
                         what);
  }

  static std::vector<std::string> Split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep)) parts.push_back(part);
    return parts;
  }

  TensorSignature Signature(const std::string& value) {
    std::vector<std::string> parts = Split(value, ' ');
    Check(parts.size() >= 3, "expected 'DTYPE SHAPE NAME'");
    TensorSignature t;
    try {
      t.dtype = runtime::ParseDataType(parts[0]);
    } catch (const runtime::Error& e) {
      Check(false, e.what());
    }
    if (parts[1] != "scalar") {
      for (const std::string& dim : Split(parts[1], 'x')) {
        char* end = nullptr;
        errno = 0;
        long long d = std::strtoll(dim.c_str(), &end, 10);
        Check(!dim.empty() && *end == '\0' && errno == 0 && d >= 0, "bad shape '" + parts[1] + "'");
        t.shape.push_back(d);
      }
    }
    t.name = runtime::UnescapeName(value.substr(parts[0].size() + parts[1].size() + 2), source_);
    return t;
  }

  std::string source_;
  int line_no_ = 0;
};

}  // namespace

std::string SerializeArtifact(const Artifact& a) {
  std::string body = HeaderText(a.header);
  const uint32_t header_bytes = static_cast<uint32_t>(body.size());
  for (const std::string* section : {&a.kernels, &a.graph, &a.params}) {
    Put<uint64_t>(&body, section->size());
    body += *section;
  }
  std::string out(kArtifactMagic, sizeof(kArtifactMagic));
  Put<uint32_t>(&out, a.header.format_version);
  Put<uint32_t>(&out, header_bytes);
  Put<uint64_t>(&out, kPrefixBytes + body.size());
  Put<uint64_t>(&out, Checksum(body.data(), body.size()));
  return out + body;
}

Artifact ParseArtifact(const std::string& bytes, const std::string& source) {
  auto fail = [&](const std::string& what) { throw runtime::Error(source + ": " + what); };
  if (bytes.size() < sizeof(kArtifactMagic) ||
      std::memcmp(bytes.data(), kArtifactMagic, sizeof(kArtifactMagic)) != 0) {
    fail("not a Tessera artifact (no 'TESSERAM' magic)");
  }
  if (bytes.size() < kPrefixBytes)
    fail("truncated artifact: " + std::to_string(bytes.size()) + " bytes, shorter than the header");
  const uint32_t version = Get<uint32_t>(bytes, 8);
  if (version > kArtifactFormatVersion || version == 0) {
    fail("artifact format version " + std::to_string(version) + " is newer than this runtime (" +
         "it reads up to version " + std::to_string(kArtifactFormatVersion) +
         "); use a newer Tessera runtime");
  }
  const uint64_t file_bytes = Get<uint64_t>(bytes, 16);
  if (file_bytes != bytes.size()) {
    fail((bytes.size() < file_bytes ? "truncated artifact: " : "corrupt artifact: ") +
         std::to_string(bytes.size()) + " bytes, the header says " + std::to_string(file_bytes));
  }
  if (Checksum(bytes.data() + kPrefixBytes, bytes.size() - kPrefixBytes) !=
      Get<uint64_t>(bytes, 24)) {
    fail("corrupt artifact: checksum mismatch (the file was damaged after it was written)");
  }
  const uint32_t header_bytes = Get<uint32_t>(bytes, 12);
  if (header_bytes > kMaxHeaderBytes || kPrefixBytes + header_bytes > bytes.size()) {
    fail("corrupt artifact: header size " + std::to_string(header_bytes) + " out of range");
  }
  Artifact a;
  a.header = HeaderParser(source).Parse(bytes.substr(kPrefixBytes, header_bytes), version);
  size_t at = kPrefixBytes + header_bytes;
  for (auto [section, name] :
       {std::make_pair(&a.kernels, "kernels"), std::make_pair(&a.graph, "graph"),
        std::make_pair(&a.params, "params")}) {
    if (bytes.size() - at < 8) fail(std::string("corrupt artifact: no ") + name + " section");
    const uint64_t n = Get<uint64_t>(bytes, at);
    at += 8;
    if (n > bytes.size() - at) {
      fail(std::string("corrupt artifact: the ") + name + " section runs past the end");
    }
    *section = bytes.substr(at, n);
    at += n;
  }
  if (at != bytes.size())
    fail("corrupt artifact: " + std::to_string(bytes.size() - at) +
         " stray bytes after the sections");
  return a;
}

}  // namespace deploy
}  // namespace tessera
