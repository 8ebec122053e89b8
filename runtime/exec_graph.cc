#include "runtime/exec_graph.h"

#include <cctype>
#include <sstream>

#include "runtime/data_type.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

std::string Shape(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::string Ids(const std::vector<int>& ids) {
  if (ids.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s;
}

// Reads one line's fields with the source and line number for every error.
class LineReader {
 public:
  LineReader(const std::string& line, const std::string& where) : in_(line), where_(where) {}
  std::string Word(const char* what) {
    std::string w;
    TESSERA_CHECK(static_cast<bool>(in_ >> w)) << where_ << ": missing " << what;
    return w;
  }
  int64_t Int(const char* what, int64_t lo, int64_t hi) {
    std::string w = Word(what);
    char* end = nullptr;
    long long v = std::strtoll(w.c_str(), &end, 10);
    TESSERA_CHECK(!w.empty() && *end == '\0' && v >= lo && v <= hi)
        << where_ << ": " << what << " '" << w << "' is not an integer in [" << lo << ", " << hi
        << "]";
    return v;
  }
  std::vector<int64_t> Dims() {
    std::string w = Word("shape");
    std::vector<int64_t> dims;
    if (w == "scalar") return dims;
    std::stringstream ss(w);
    std::string d;
    while (std::getline(ss, d, 'x')) {
      char* end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      TESSERA_CHECK(!d.empty() && *end == '\0' && v >= 0) << where_ << ": bad shape '" << w << "'";
      dims.push_back(v);
    }
    return dims;
  }
  std::vector<int> IdList(const char* what, size_t count) {
    std::string w = Word(what);
    std::vector<int> ids;
    if (w == "-") return ids;
    std::stringstream ss(w);
    std::string d;
    while (std::getline(ss, d, ',')) {
      char* end = nullptr;
      long long v = std::strtoll(d.c_str(), &end, 10);
      TESSERA_CHECK(!d.empty() && *end == '\0' && v >= 0 && static_cast<size_t>(v) < count)
          << where_ << ": " << what << " '" << d << "' is not a tensor id (" << count
          << " tensors so far)";
      ids.push_back(static_cast<int>(v));
    }
    return ids;
  }

 private:
  std::istringstream in_;
  std::string where_;
};

}  // namespace

std::string EscapeName(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '%' || c == '\n' || c == '\r' || c == '\t' || c == ',') {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
      out += hex[static_cast<unsigned char>(c) & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string UnescapeName(const std::string& s, const std::string& where) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      TESSERA_CHECK(isxdigit(static_cast<unsigned char>(s[i + 1])) &&
                    isxdigit(static_cast<unsigned char>(s[i + 2])))
          << where << ": bad escape in name '" << s << "'";
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string ExecGraph::ToText() const {
  std::ostringstream os;
  os << "tessera-exec-graph " << kExecGraphVersion << "\n";
  for (size_t i = 0; i < storage_bytes.size(); ++i) {
    os << "storage " << i << " " << storage_bytes[i] << "\n";
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ExecTensor& t = tensors[i];
    os << "tensor " << i << " " << EscapeName(t.name) << " " << DataTypeToString(t.dtype) << " "
       << Shape(t.shape) << " " << (t.storage < 0 ? "param" : std::to_string(t.storage)) << "\n";
  }
  for (const ExecNode& n : nodes) {
    os << "node " << EscapeName(n.name) << " " << n.function << " " << Ids(n.inputs) << " "
       << Ids(n.outputs) << "\n";
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ExecNode& n = nodes[i];
    if (n.workload.empty()) continue;
    os << "kernel " << i << " " << EscapeName(n.workload) << " "
       << (n.source.empty() ? "-" : EscapeName(n.source)) << " " << static_cast<int64_t>(n.flops)
       << "\n";
  }
  for (int i : inputs) os << "input " << i << "\n";
  for (int o : outputs) os << "output " << o << "\n";
  return os.str();
}

ExecGraph ExecGraph::Parse(const std::string& text, const std::string& source) {
  ExecGraph g;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::string where = source + ":" + std::to_string(number);
    LineReader r(line, where);
    std::string kind = r.Word("record kind");
    if (number == 1) {
      TESSERA_CHECK(kind == "tessera-exec-graph")
          << source << ": not a Tessera execution graph (first line '" << line << "')";
      int64_t version = r.Int("version", 1, 1 << 20);
      TESSERA_CHECK(version <= kExecGraphVersion)
          << source << ": execution graph version " << version
          << " is newer than this runtime reads (" << kExecGraphVersion << ")";
      continue;
    }
    if (kind == "storage") {
      r.Int("storage id", static_cast<int64_t>(g.storage_bytes.size()),
            static_cast<int64_t>(g.storage_bytes.size()));
      g.storage_bytes.push_back(r.Int("storage bytes", 0, int64_t{1} << 40));
    } else if (kind == "tensor") {
      r.Int("tensor id", static_cast<int64_t>(g.tensors.size()),
            static_cast<int64_t>(g.tensors.size()));
      ExecTensor t;
      t.name = UnescapeName(r.Word("tensor name"), where);
      std::string dtype = r.Word("dtype");
      try {
        t.dtype = ParseDataType(dtype);
      } catch (const Error& e) {
        TESSERA_CHECK(false) << where << ": " << e.what();
      }
      t.shape = r.Dims();
      std::string storage = r.Word("storage");
      if (storage != "param") {
        LineReader s(storage, where);
        t.storage = static_cast<int>(
            s.Int("storage id", 0, static_cast<int64_t>(g.storage_bytes.size()) - 1));
      }
      g.tensors.push_back(std::move(t));
    } else if (kind == "node") {
      ExecNode n;
      n.name = UnescapeName(r.Word("node name"), where);
      n.function = r.Word("function");
      n.inputs = r.IdList("input id", g.tensors.size());
      n.outputs = r.IdList("output id", g.tensors.size());
      g.nodes.push_back(std::move(n));
    } else if (kind == "kernel") {
      ExecNode& n = g.nodes.at(
          static_cast<size_t>(r.Int("node index", 0, static_cast<int64_t>(g.nodes.size()) - 1)));
      n.workload = UnescapeName(r.Word("template workload"), where);
      n.source = UnescapeName(r.Word("config source"), where);
      if (n.source == "-") n.source.clear();
      n.flops = static_cast<double>(r.Int("FLOPs", 0, int64_t{1} << 62));
    } else if (kind == "input" || kind == "output") {
      int id = static_cast<int>(r.Int("tensor id", 0, static_cast<int64_t>(g.tensors.size()) - 1));
      (kind == "input" ? g.inputs : g.outputs).push_back(id);
    } else {
      TESSERA_CHECK(false) << where << ": unknown record '" << kind << "'";
    }
  }
  TESSERA_CHECK(number > 0) << source << ": empty execution graph";
  return g;
}

}  // namespace runtime
}  // namespace tessera
