#include "compiler/codegen/c/c_module.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compiler/codegen/c/codegen_c.h"
#include "compiler/support/error.h"

namespace tessera {
namespace codegen {

namespace {

// A compiled C library plus its source; removes its temporary directory when destroyed.
class CModuleNode : public runtime::ModuleNode {
 public:
  CModuleNode(runtime::Module library, std::string source, std::string dir, std::string so_path)
      : library_(std::move(library)),
        source_(std::move(source)),
        dir_(std::move(dir)),
        so_path_(std::move(so_path)) {}
  ~CModuleNode() override {
    std::remove(so_path_.c_str());
    std::remove((dir_ + "/module.c").c_str());
    rmdir(dir_.c_str());
  }
  std::string type_key() const override { return "c"; }
  runtime::PackedFunc FindFunction(const std::string& name) override {
    return library_.GetFunction(name, false);
  }
  std::string GetSource(const std::string& format) override {
    TESSERA_USER_CHECK(format.empty() || format == "c")
        << "a C module has source in format \"c\" only, not \"" << format << "\"";
    return source_;
  }
  void ExportLibrary(const std::string& path) override {
    std::ifstream in(so_path_, std::ios::binary);
    std::ofstream out(path, std::ios::binary);
    TESSERA_USER_CHECK(out.good()) << "export_library: cannot write '" << path << "'";
    out << in.rdbuf();
    TESSERA_USER_CHECK(out.good()) << "export_library: writing '" << path << "' failed";
  }

 private:
  runtime::Module library_;
  std::string source_, dir_, so_path_;
};

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

}  // namespace

runtime::Module BuildCModule(const std::vector<ir::PrimFunc>& funcs, const CBuildOptions& options) {
  std::string source = GenerateC(funcs);
  const char* tmp = std::getenv("TEST_TMPDIR");
  if (!tmp) tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp ? tmp : "/tmp") + "/tessera_c_XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  TESSERA_USER_CHECK(mkdtemp(buf.data()) != nullptr)
      << "cannot create a temporary directory under " << templ;
  std::string dir = buf.data();
  std::string c_path = dir + "/module.c", so_path = dir + "/module.so", log_path = dir + "/cc.log";
  {
    std::ofstream out(c_path);
    out << source;
    TESSERA_USER_CHECK(out.good()) << "cannot write " << c_path;
  }
  std::string compiler = options.compiler;
  if (compiler.empty()) {
    const char* env = std::getenv("TESSERA_CC");
    compiler = env && *env ? env : "cc";
  }
  std::string cmd = ShellQuote(compiler) + " -shared -fPIC";
  for (const std::string& f : options.flags) cmd += " " + ShellQuote(f);
  cmd += " -o " + ShellQuote(so_path) + " " + ShellQuote(c_path) + " -lm > " +
         ShellQuote(log_path) + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream log_in(log_path);
  std::stringstream log;
  log << log_in.rdbuf();
  std::remove(log_path.c_str());
  if (rc != 0) {
    std::remove(so_path.c_str());
    std::remove(c_path.c_str());
    rmdir(dir.c_str());
    TESSERA_INTERNAL_ERROR() << "the generated C did not compile (" << compiler << ", exit status "
                             << rc << "):\n"
                             << log.str();
  }
  runtime::Module library = runtime::Module::LoadFromFile(so_path);
  return runtime::Module(std::make_shared<CModuleNode>(library, source, dir, so_path));
}

}  // namespace codegen
}  // namespace tessera
