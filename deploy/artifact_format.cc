// The artifact's bytes: a fixed prefix (magic, format version, header size, file size, checksum),
// the header as line-based text, then three length-prefixed sections (kernels, graph, params),
// and from version 3 two more (kernels, graph) for each batch bucket after the first.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "deploy/artifact.h"
#include "deploy/artifact_view.h"
#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/exec_graph.h"

namespace tessera {
namespace deploy {
namespace {

constexpr size_t kPrefixBytes = 32;  // magic 8, version 4, header size 4, file size 8, checksum 8
// A header is a few lines per input and output; anything larger is not one of ours.
constexpr uint32_t kMaxHeaderBytes = 1 << 20;

// Format 1: FNV-1a 64, one byte at a time (about 1 byte per 4 cycles: most of a large model's
// load time), from 1469598103934665603, a digit short of FNV's offset basis (version 1 files
// carry this checksum, so it stays).
uint64_t Fnv1a64(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

// Format 2: XXH64 with seed 0 (as `xxhsum -H64` prints it), which reads 32 bytes per step over
// four independent lanes. Like FNV-1a it catches damage, it is no signature against tampering.
constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                   kP3 = 0x165667B19E3779F9ull, kP4 = 0x85EBCA77C2B2AE63ull,
                   kP5 = 0x27D4EB2F165667C5ull;

uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

template <typename T>
T LoadLE(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  value = sizeof(T) == 8 ? static_cast<T>(__builtin_bswap64(value))
                         : static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(value)));
#endif
  return value;
}

uint64_t XxhRound(uint64_t acc, uint64_t input) { return Rotl(acc + input * kP2, 31) * kP1; }

uint64_t XxhMerge(uint64_t acc, uint64_t lane) { return (acc ^ XxhRound(0, lane)) * kP1 + kP4; }

uint64_t Xxh64(const char* p, size_t n) {
  const char* const end = p + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t v1 = kP1 + kP2, v2 = kP2, v3 = 0, v4 = 0 - kP1;
    for (const char* limit = end - 32; p <= limit; p += 32) {
      v1 = XxhRound(v1, LoadLE<uint64_t>(p));
      v2 = XxhRound(v2, LoadLE<uint64_t>(p + 8));
      v3 = XxhRound(v3, LoadLE<uint64_t>(p + 16));
      v4 = XxhRound(v4, LoadLE<uint64_t>(p + 24));
    }
    h = Rotl(v1, 1) + Rotl(v2, 7) + Rotl(v3, 12) + Rotl(v4, 18);
    h = XxhMerge(XxhMerge(XxhMerge(XxhMerge(h, v1), v2), v3), v4);
  } else {
    h = kP5;
  }
  h += n;
  for (; end - p >= 8; p += 8) h = Rotl(h ^ XxhRound(0, LoadLE<uint64_t>(p)), 27) * kP1 + kP4;
  if (end - p >= 4) {
    h = Rotl(h ^ (LoadLE<uint32_t>(p) * kP1), 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) h = Rotl(h ^ (static_cast<unsigned char>(*p) * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) bytes[i] = static_cast<char>(value >> (8 * i));
  out->append(bytes, sizeof(T));
}

template <typename T>
T Get(std::string_view in, size_t at) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  }
  return value;
}

// The batch axis is "N": "Nx3x224x224".
std::string ShapeText(const TensorSignature& t) {
  if (t.shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    out += i ? "x" : "";
    out += static_cast<int>(i) == t.batch_axis ? "N" : std::to_string(t.shape[i]);
  }
  return out;
}

std::string BucketList(const std::vector<int64_t>& buckets) {
  std::string out;
  for (size_t i = 0; i < buckets.size(); ++i) out += (i ? "," : "") + std::to_string(buckets[i]);
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
  if (h.kernel_format != kSharedLibraryKernels) out << "kernels " << h.kernel_format << "\n";
  if (!h.batch_buckets.empty()) out << "batch-buckets " << BucketList(h.batch_buckets) << "\n";
  for (const auto* list : {&h.inputs, &h.outputs}) {
    for (const TensorSignature& t : *list) {
      out << (list == &h.inputs ? "input " : "output ") << runtime::DataTypeToString(t.dtype) << " "
          << ShapeText(t) << " " << runtime::EscapeName(t.name) << "\n";
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
      } else if (key == "kernels") {
        Check(value == kSharedLibraryKernels || value == kCSourceKernels || value == kCUDAKernels,
              "unknown kernel format '" + value + "'");
        h.kernel_format = value;
      } else if (key == "cpu-features") {
        if (value != "-") h.cpu_features = Split(value, ',');
      } else if (key == "batch-buckets" && version >= 3) {
        h.batch_buckets = Buckets(value);
      } else if (key == "input" || key == "output") {
        (key == "input" ? h.inputs : h.outputs).push_back(Signature(value, version));
      } else {
        Check(false, "unknown key '" + key + "'");
      }
    }
    line_no_ = 0;
    Check(seen_target && seen_arch, "the header lacks the target or the architecture");
    for (const auto* list : {&h.inputs, &h.outputs}) {
      for (const TensorSignature& t : *list) {
        Check(
            (t.batch_axis >= 0) == !h.batch_buckets.empty(),
            "'" + t.name + "' " +
                (h.batch_buckets.empty() ? "has a batch dimension N but there are no batch buckets"
                                         : "has no batch dimension N in a model of batch buckets"));
      }
    }
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

  std::vector<int64_t> Buckets(const std::string& value) {
    std::vector<int64_t> buckets;
    for (const std::string& item : Split(value, ',')) {
      char* end = nullptr;
      errno = 0;
      const long long b = std::strtoll(item.c_str(), &end, 10);
      Check(!item.empty() && *end == '\0' && errno == 0 && b > 0 &&
                (buckets.empty() || b > buckets.back()),
            "bad batch buckets '" + value + "' (ascending positive sizes)");
      buckets.push_back(b);
    }
    Check(!buckets.empty(), "no batch buckets");
    return buckets;
  }

  TensorSignature Signature(const std::string& value, uint32_t version) {
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
        if (dim == "N" && version >= 3) {
          Check(t.batch_axis < 0, "two batch dimensions in '" + parts[1] + "'");
          t.batch_axis = static_cast<int>(t.shape.size());
          t.shape.push_back(-1);
          continue;
        }
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

uint64_t ArtifactChecksum(uint32_t format_version, const char* data, size_t n) {
  return format_version == 1 ? Fnv1a64(data, n) : Xxh64(data, n);
}

std::string SerializeArtifact(const Artifact& a) {
  const size_t buckets = a.header.batch_buckets.size();
  if ((buckets > 0 && a.header.format_version < 3) ||
      a.other_buckets.size() != (buckets > 0 ? buckets - 1 : 0)) {
    throw runtime::Error("internal error: an artifact of format " +
                         std::to_string(a.header.format_version) + " with " +
                         std::to_string(buckets) + " batch buckets and " +
                         std::to_string(a.other_buckets.size()) + " more bucket sections");
  }
  std::string body = HeaderText(a.header);
  const uint32_t header_bytes = static_cast<uint32_t>(body.size());
  std::vector<const std::string*> sections = {&a.kernels, &a.graph, &a.params};
  for (const ArtifactBucket& bucket : a.other_buckets) {
    sections.push_back(&bucket.kernels);
    sections.push_back(&bucket.graph);
  }
  for (const std::string* section : sections) {
    Put<uint64_t>(&body, section->size());
    body += *section;
  }
  std::string out(kArtifactMagic, sizeof(kArtifactMagic));
  Put<uint32_t>(&out, a.header.format_version);
  Put<uint32_t>(&out, header_bytes);
  Put<uint64_t>(&out, kPrefixBytes + body.size());
  Put<uint64_t>(&out, ArtifactChecksum(a.header.format_version, body.data(), body.size()));
  return out + body;
}

ArtifactView ParseArtifactView(std::string_view bytes, const std::string& source) {
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
  if (ArtifactChecksum(version, bytes.data() + kPrefixBytes, bytes.size() - kPrefixBytes) !=
      Get<uint64_t>(bytes, 24)) {
    fail("corrupt artifact: checksum mismatch (the file was damaged after it was written)");
  }
  const uint32_t header_bytes = Get<uint32_t>(bytes, 12);
  if (header_bytes > kMaxHeaderBytes || kPrefixBytes + header_bytes > bytes.size()) {
    fail("corrupt artifact: header size " + std::to_string(header_bytes) + " out of range");
  }
  ArtifactView a;
  a.header =
      HeaderParser(source).Parse(std::string(bytes.substr(kPrefixBytes, header_bytes)), version);
  size_t at = kPrefixBytes + header_bytes;
  std::vector<std::pair<std::string_view*, std::string>> sections = {
      {&a.kernels, "kernels"}, {&a.graph, "graph"}, {&a.params, "params"}};
  if (!a.header.batch_buckets.empty()) {
    a.other_buckets.resize(a.header.batch_buckets.size() - 1);
    for (size_t b = 0; b < a.other_buckets.size(); ++b) {
      const std::string bucket = " (batch " + std::to_string(a.header.batch_buckets[b + 1]) + ")";
      sections.emplace_back(&a.other_buckets[b].kernels, "kernels" + bucket);
      sections.emplace_back(&a.other_buckets[b].graph, "graph" + bucket);
    }
  }
  for (auto& [section, name] : sections) {
    if (bytes.size() - at < 8) fail("corrupt artifact: no " + name + " section");
    const uint64_t n = Get<uint64_t>(bytes, at);
    at += 8;
    if (n > bytes.size() - at) fail("corrupt artifact: the " + name + " section runs past the end");
    *section = bytes.substr(at, static_cast<size_t>(n));
    at += n;
  }
  if (at != bytes.size())
    fail("corrupt artifact: " + std::to_string(bytes.size() - at) +
         " stray bytes after the sections");
  return a;
}

Artifact ParseArtifact(const std::string& bytes, const std::string& source) {
  ArtifactView view = ParseArtifactView(bytes, source);
  Artifact a{std::move(view.header),
             std::string(view.kernels),
             std::string(view.graph),
             std::string(view.params),
             {}};
  for (const ArtifactView::Bucket& b : view.other_buckets) {
    a.other_buckets.push_back({std::string(b.kernels), std::string(b.graph)});
  }
  return a;
}

}  // namespace deploy
}  // namespace tessera
