#include "compiler/codegen/c/c_module.h"

#include <cstdlib>
#include <fstream>
#include <memory>

#include "common/file.h"
#include "common/subprocess.h"
#include "compiler/codegen/c/codegen_c.h"
#include "compiler/support/error.h"

namespace tessera {
namespace codegen {

namespace {

// A compiled C library plus its source; its temporary directory goes with it (after the library:
// members are destroyed in reverse order).
class CModuleNode : public runtime::ModuleNode {
 public:
  CModuleNode(std::unique_ptr<TempDir> dir, runtime::Module library, std::string source,
              std::string so_path)
      : dir_(std::move(dir)),
        library_(std::move(library)),
        source_(std::move(source)),
        so_path_(std::move(so_path)) {}
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
  std::unique_ptr<TempDir> dir_;
  runtime::Module library_;
  std::string source_, so_path_;
};

}  // namespace

runtime::Module BuildCModule(const std::vector<ir::PrimFunc>& funcs, const CBuildOptions& options) {
  std::string source = GenerateC(funcs);
  auto dir = std::make_unique<TempDir>("tessera_c");
  const std::string c_path = dir->path() + "/module.c", so_path = dir->path() + "/module.so";
  WriteFile(c_path, source, "the generated C");
  std::string compiler = options.compiler;
  if (compiler.empty()) {
    const char* env = std::getenv("TESSERA_CC");
    compiler = env && *env ? env : "cc";
  }
  std::vector<std::string> argv = {compiler, "-shared", "-fPIC"};
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  argv.insert(argv.end(), {"-o", so_path, c_path, "-lm"});
  const ProgramResult compiled = RunProgram(argv);
  TESSERA_USER_CHECK(!compiled.not_found())
      << "the C compiler '" << compiler
      << "' is not installed (install one, e.g. Debian's gcc, or name it in TESSERA_CC)";
  if (!compiled.ok()) {
    TESSERA_INTERNAL_ERROR() << "the generated C did not compile (" << compiler << ", "
                             << compiled.Describe() << "):\n"
                             << compiled.output;
  }
  runtime::Module library = runtime::Module::LoadFromFile(so_path);
  return runtime::Module(
      std::make_shared<CModuleNode>(std::move(dir), library, std::move(source), so_path));
}

}  // namespace codegen
}  // namespace tessera
