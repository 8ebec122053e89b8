#include "runtime/elf_loader.h"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

// The ELF class of this machine's libraries: 64-bit on x86-64 and aarch64, 32-bit on armv7.
#if defined(__x86_64__) || defined(__aarch64__)
using Ehdr = Elf64_Ehdr;
using Phdr = Elf64_Phdr;
using Shdr = Elf64_Shdr;
using Dyn = Elf64_Dyn;
using Sym = Elf64_Sym;
using Rel = Elf64_Rel;
using Rela = Elf64_Rela;
using Addr = uint64_t;
constexpr unsigned char kClass = ELFCLASS64;
constexpr const char* kClassName = "64-bit";
uint32_t SymbolOf(uint64_t info) { return ELF64_R_SYM(info); }
uint32_t TypeOf(uint64_t info) { return ELF64_R_TYPE(info); }
#elif defined(__arm__)
using Ehdr = Elf32_Ehdr;
using Phdr = Elf32_Phdr;
using Shdr = Elf32_Shdr;
using Dyn = Elf32_Dyn;
using Sym = Elf32_Sym;
using Rel = Elf32_Rel;
using Rela = Elf32_Rela;
using Addr = uint32_t;
constexpr unsigned char kClass = ELFCLASS32;
constexpr const char* kClassName = "32-bit";
uint32_t SymbolOf(uint32_t info) { return ELF32_R_SYM(info); }
uint32_t TypeOf(uint32_t info) { return ELF32_R_TYPE(info); }
#else
#error "the embedded kernel loader supports x86-64, aarch64 and armv7 hosts"
#endif
constexpr Addr kAddrMax = static_cast<Addr>(-1);
constexpr uint64_t kMaxSpan = uint64_t{1} << 30;

// This machine and the numbers of the relocations the loader applies. GLOB_DAT and JUMP_SLOT bind
// a symbol's address; aarch64's ABI adds their addend to it, the others' do not.
#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
constexpr const char* kMachineName = "x86_64";
constexpr uint32_t kRelocNone = R_X86_64_NONE, kRelocRelative = R_X86_64_RELATIVE,
                   kRelocGlobDat = R_X86_64_GLOB_DAT, kRelocJumpSlot = R_X86_64_JUMP_SLOT,
                   kRelocAbsolute = R_X86_64_64;
constexpr bool kSlotsAddAddend = false;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
constexpr const char* kMachineName = "aarch64";
constexpr uint32_t kRelocNone = R_AARCH64_NONE, kRelocRelative = R_AARCH64_RELATIVE,
                   kRelocGlobDat = R_AARCH64_GLOB_DAT, kRelocJumpSlot = R_AARCH64_JUMP_SLOT,
                   kRelocAbsolute = R_AARCH64_ABS64;
constexpr bool kSlotsAddAddend = true;
#else
constexpr uint16_t kMachine = EM_ARM;
constexpr const char* kMachineName = "arm";
constexpr uint32_t kRelocNone = R_ARM_NONE, kRelocRelative = R_ARM_RELATIVE,
                   kRelocGlobDat = R_ARM_GLOB_DAT, kRelocJumpSlot = R_ARM_JUMP_SLOT,
                   kRelocAbsolute = R_ARM_ABS32;
constexpr bool kSlotsAddAddend = false;
#endif

std::string MachineName(uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_ARM:
      return "arm";
    case EM_386:
      return "i386";
    case EM_RISCV:
      return "riscv";
    default:
      return "machine " + std::to_string(machine);
  }
}

// Relocation kinds, the same four on every architecture. The addend is the entry's own (RELA) or
// the value at the relocated place (REL, armv7's).
enum class RelocationKind { kNone, kRelative, kSymbol, kSymbolPlusAddend, kUnsupported };

RelocationKind KindOf(uint32_t type) {
  if (type == kRelocNone) return RelocationKind::kNone;
  if (type == kRelocRelative) return RelocationKind::kRelative;
  if (type == kRelocGlobDat || type == kRelocJumpSlot) {
    return kSlotsAddAddend ? RelocationKind::kSymbolPlusAddend : RelocationKind::kSymbol;
  }
  if (type == kRelocAbsolute) return RelocationKind::kSymbolPlusAddend;
  return RelocationKind::kUnsupported;
}

// Reads the library's structures with every offset and address checked against what is there.
class ElfImage {
 public:
  ElfImage(std::string_view bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(source_ + ": cannot load the kernel library: " + what);
  }

  // A `T` at file offset `offset`, `count` of them.
  template <typename T>
  const T* FileArray(uint64_t offset, uint64_t count, const char* what) const {
    return reinterpret_cast<const T*>(Checked(offset, count, sizeof(T), alignof(T), what));
  }

  const std::string_view bytes_;
  const std::string source_;

 private:
  // One check for every type (the runtime ships in a size-limited runner).
  const char* Checked(uint64_t offset, uint64_t count, size_t size, size_t align,
                      const char* what) const {
    if (offset > bytes_.size() || count > (bytes_.size() - offset) / size) {
      Fail(std::string(what) + " lies outside the file (" + std::to_string(bytes_.size()) +
           " bytes; truncated?)");
    }
    if (offset % align != 0) Fail(std::string(what) + " is misaligned");
    return bytes_.data() + offset;
  }
};

// The mapped span: library addresses (vaddr) to memory, each access checked.
class Mapping {
 public:
  Mapping(const ElfImage& image, char* base, uint64_t low, uint64_t high)
      : image_(image), base_(base), low_(low), high_(high) {}

  template <typename T>
  T* At(uint64_t vaddr, uint64_t count, const char* what) const {
    return reinterpret_cast<T*>(Checked(vaddr, count, sizeof(T), alignof(T), what));
  }
  char* base() const { return base_; }

 private:
  char* Checked(uint64_t vaddr, uint64_t count, size_t size, size_t align, const char* what) const {
    if (vaddr < low_ || vaddr > high_ || count > (high_ - vaddr) / size) {
      image_.Fail(std::string(what) + " lies outside the library's segments");
    }
    if (vaddr % align != 0) image_.Fail(std::string(what) + " is misaligned");
    return base_ + vaddr;
  }

  const ElfImage& image_;
  char* base_;  // memory of vaddr 0 (the span starts at base_ + low_)
  uint64_t low_, high_;
};

struct DynamicInfo {
  uint64_t symtab = 0, strtab = 0, strsz = 0, hash = 0;
  uint64_t rela = 0, relasz = 0, rel = 0, relsz = 0, jmprel = 0, pltrelsz = 0;
  bool plt_rela = true;  // DT_PLTREL: the PLT's table is RELA (else REL)
  uint64_t init = 0, fini = 0, init_array = 0, init_arraysz = 0, fini_array = 0, fini_arraysz = 0;
};

DynamicInfo ReadDynamic(const ElfImage& image, const Mapping& mapping, const Phdr& dynamic) {
  DynamicInfo info;
  const uint64_t count = dynamic.p_memsz / sizeof(Dyn);
  const Dyn* entries = mapping.At<Dyn>(dynamic.p_vaddr, count, "the dynamic section");
  for (uint64_t i = 0; i < count && entries[i].d_tag != DT_NULL; ++i) {
    const uint64_t value = entries[i].d_un.d_val;
    switch (entries[i].d_tag) {
      case DT_SYMTAB:
        info.symtab = value;
        break;
      case DT_STRTAB:
        info.strtab = value;
        break;
      case DT_STRSZ:
        info.strsz = value;
        break;
      case DT_HASH:
        info.hash = value;
        break;
      case DT_RELA:
        info.rela = value;
        break;
      case DT_RELASZ:
        info.relasz = value;
        break;
      case DT_JMPREL:
        info.jmprel = value;
        break;
      case DT_PLTRELSZ:
        info.pltrelsz = value;
        break;
      case DT_INIT:
        info.init = value;
        break;
      case DT_FINI:
        info.fini = value;
        break;
      case DT_INIT_ARRAY:
        info.init_array = value;
        break;
      case DT_INIT_ARRAYSZ:
        info.init_arraysz = value;
        break;
      case DT_FINI_ARRAY:
        info.fini_array = value;
        break;
      case DT_FINI_ARRAYSZ:
        info.fini_arraysz = value;
        break;
      case DT_PLTREL:
        info.plt_rela = value == DT_RELA;
        break;
      case DT_REL:
        info.rel = value;
        break;
      case DT_RELSZ:
        info.relsz = value;
        break;
      case DT_RELR:
        image.Fail("it has packed RELR relocations (link without -z pack-relative-relocs)");
      case DT_TEXTREL:
        image.Fail("it relocates its code (text relocations; compile it position-independent)");
      default:
        break;  // DT_NEEDED among them: imports bind to the runtime, not to other libraries
    }
  }
  if (info.symtab == 0 || info.strtab == 0) image.Fail("it has no dynamic symbol table");
  return info;
}

// The number of dynamic symbols: from DT_HASH when there is one, else from the section headers
// (GNU-hash-only libraries, which is what Debian's linkers write).
uint64_t SymbolCount(const ElfImage& image, const Mapping& mapping, const DynamicInfo& info) {
  if (info.hash != 0) return mapping.At<uint32_t>(info.hash, 2, "the symbol hash table")[1];
  const auto* header = image.FileArray<Ehdr>(0, 1, "the ELF header");
  if (header->e_shoff == 0 || header->e_shentsize != sizeof(Shdr)) {
    image.Fail("it has neither a DT_HASH table nor section headers to count its symbols");
  }
  const auto* sections =
      image.FileArray<Shdr>(header->e_shoff, header->e_shnum, "the section headers");
  for (int i = 0; i < header->e_shnum; ++i) {
    if (sections[i].sh_type == SHT_DYNSYM && sections[i].sh_entsize == sizeof(Sym)) {
      return sections[i].sh_size / sizeof(Sym);
    }
  }
  image.Fail("it has no .dynsym section");
}

// Page-granular protections: a page shared by two segments gets both segments' rights, and the
// part the library declares read-only after relocation (GNU_RELRO) loses its write right.
void Protect(const ElfImage& image, char* map, size_t size, uint64_t low,
             const std::vector<const Phdr*>& loads, const Phdr* relro) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  std::vector<int> rights(size / page, 0);
  auto pages = [&](uint64_t vaddr, uint64_t bytes, auto&& apply) {
    if (bytes == 0) return;
    const uint64_t first = (vaddr - low) / page, last = (vaddr - low + bytes - 1) / page;
    for (uint64_t p = first; p <= last && p < rights.size(); ++p) apply(rights[p]);
  };
  for (const Phdr* load : loads) {
    int prot = 0;
    if (load->p_flags & PF_R) prot |= PROT_READ;
    if (load->p_flags & PF_W) prot |= PROT_WRITE;
    if (load->p_flags & PF_X) prot |= PROT_EXEC;
    pages(load->p_vaddr, load->p_memsz, [prot](int& r) { r |= prot; });
  }
  if (relro != nullptr) {
    // Only pages wholly inside the range: a page it shares with writable data stays writable.
    const uint64_t start = (relro->p_vaddr + page - 1) / page * page;
    const uint64_t end = (relro->p_vaddr + relro->p_memsz) / page * page;
    if (end > start) pages(start, end - start, [](int& r) { r &= ~PROT_WRITE; });
  }
  for (size_t p = 0; p < rights.size();) {
    size_t q = p;
    while (q < rights.size() && rights[q] == rights[p]) ++q;
    if (mprotect(map + p * page, (q - p) * page, rights[p]) != 0) {
      image.Fail(std::string("mprotect failed: ") + std::strerror(errno));
    }
#if defined(__aarch64__) || defined(__arm__)
    if (rights[p] & PROT_EXEC) {
      __builtin___clear_cache(map + p * page, map + q * page);
    }
#endif
    p = q;
  }
}

struct Segments {
  std::vector<const Phdr*> loads;
  const Phdr* dynamic = nullptr;
  const Phdr* relro = nullptr;
  uint64_t low = kAddrMax, high = 0;  // the page-aligned span of the loadable segments
};

const Ehdr* CheckHeader(const ElfImage& image) {
  const std::string_view bytes = image.bytes_;
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    image.Fail("not an ELF file");
  }
  if (bytes[EI_CLASS] != kClass || bytes[EI_DATA] != ELFDATA2LSB) {
    image.Fail(std::string("not a ") + kClassName + " little-endian ELF file (this runtime runs " +
               kMachineName + ")");
  }
  const auto* header = image.FileArray<Ehdr>(0, 1, "the ELF header");
  if (header->e_machine != kMachine) {
    image.Fail("built for " + MachineName(header->e_machine) + ", this runtime runs " +
               kMachineName);
  }
  if (header->e_type != ET_DYN) {
    image.Fail("not a shared library (ELF type " + std::to_string(header->e_type) + ")");
  }
  if (header->e_phentsize != sizeof(Phdr)) image.Fail("unexpected program header size");
  return header;
}

Segments ScanSegments(const ElfImage& image, const Ehdr& header) {
  const auto* headers =
      image.FileArray<Phdr>(header.e_phoff, header.e_phnum, "the program headers");
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  Segments segments;
  for (int i = 0; i < header.e_phnum; ++i) {
    const Phdr& segment = headers[i];
    switch (segment.p_type) {
      case PT_LOAD:
        if (segment.p_filesz > segment.p_memsz || segment.p_memsz > (kAddrMax >> 2) ||
            segment.p_vaddr > (kAddrMax >> 2)) {
          image.Fail("a loadable segment has inconsistent sizes");
        }
        image.FileArray<char>(segment.p_offset, segment.p_filesz, "a loadable segment");
        segments.loads.push_back(&segment);
        segments.low = std::min(segments.low, segment.p_vaddr / page * page);
        segments.high =
            std::max(segments.high, (segment.p_vaddr + segment.p_memsz + page - 1) / page * page);
        break;
      case PT_DYNAMIC:
        segments.dynamic = &segment;
        break;
      case PT_GNU_RELRO:
        segments.relro = &segment;
        break;
      case PT_TLS:
        image.Fail("it uses thread-local storage, which kernels loaded by the runtime cannot");
      default:
        break;
    }
  }
  if (segments.loads.empty()) image.Fail("it has no loadable segment");
  // A kernel library spans kilobytes to megabytes; a corrupt size must not reserve terabytes.
  if (segments.high - segments.low > kMaxSpan) {
    image.Fail("its segments span " + std::to_string(segments.high - segments.low) +
               " bytes, more than a kernel library's " + std::to_string(kMaxSpan));
  }
  if (segments.dynamic == nullptr) image.Fail("it has no dynamic section (a static executable?)");
  return segments;
}

// The dynamic symbols and their names.
class SymbolTable {
 public:
  SymbolTable(const ElfImage& image, const Mapping& mapping, const DynamicInfo& info)
      : image_(image), count_(SymbolCount(image, mapping, info)), strings_size_(info.strsz) {
    symbols_ = mapping.At<Sym>(info.symtab, count_, "the symbol table");
    strings_ = mapping.At<char>(info.strtab, info.strsz, "the string table");
  }
  uint64_t size() const { return count_; }
  const Sym& operator[](uint64_t index) const {
    if (index >= count_) image_.Fail("a relocation names a symbol past the symbol table");
    return symbols_[index];
  }
  std::string NameOf(const Sym& symbol) const {
    if (symbol.st_name >= strings_size_) {
      image_.Fail("a symbol's name lies outside the string table");
    }
    const char* name = strings_ + symbol.st_name;
    return std::string(name, strnlen(name, strings_size_ - symbol.st_name));
  }

 private:
  const ElfImage& image_;
  uint64_t count_, strings_size_;
  const Sym* symbols_;
  const char* strings_;
};

// One relocation of a REL or RELA table, its addend read.
struct Relocation {
  Addr offset;
  uint32_t type, symbol;
  std::optional<Addr> addend;  // RELA's; REL's is the value at the place
};

std::vector<Relocation> ReadTable(const Mapping& mapping, uint64_t table, uint64_t table_bytes,
                                  bool rela, const char* what) {
  std::vector<Relocation> out;
  const uint64_t count = table_bytes / (rela ? sizeof(Rela) : sizeof(Rel));
  if (count == 0) return out;
  if (rela) {
    for (const Rela* r = mapping.At<Rela>(table, count, what); out.size() < count; ++r) {
      out.push_back(
          {r->r_offset, TypeOf(r->r_info), SymbolOf(r->r_info), static_cast<Addr>(r->r_addend)});
    }
  } else {
    for (const Rel* r = mapping.At<Rel>(table, count, what); out.size() < count; ++r) {
      out.push_back({r->r_offset, TypeOf(r->r_info), SymbolOf(r->r_info), std::nullopt});
    }
  }
  return out;
}

// Applies the relocations; imports bind through `resolve`, a library's own definitions to
// themselves (no interposition). Returns the names of non-weak imports `resolve` does not know.
std::vector<std::string> Relocate(const ElfImage& image, const Mapping& mapping,
                                  const DynamicInfo& info, const SymbolTable& symbols,
                                  ElfImportResolver resolve) {
  const Addr base = static_cast<Addr>(reinterpret_cast<uintptr_t>(mapping.base()));
  std::vector<std::string> missing;
  std::unordered_map<uint64_t, Addr> bound;
  auto address_of = [&](uint64_t index) -> Addr {
    const Sym& symbol = symbols[index];
    if (symbol.st_shndx != SHN_UNDEF) return base + symbol.st_value;
    auto known = bound.find(index);
    if (known != bound.end()) return known->second;
    const std::string name = symbols.NameOf(symbol);
    const Addr address = static_cast<Addr>(reinterpret_cast<uintptr_t>(resolve(name)));
    if (address == 0 && ELF64_ST_BIND(symbol.st_info) != STB_WEAK) missing.push_back(name);
    return bound[index] = address;
  };
  std::vector<Relocation> all = ReadTable(mapping, info.rela, info.relasz, true, "the RELA table");
  for (const auto& table : {ReadTable(mapping, info.rel, info.relsz, false, "the REL table"),
                            ReadTable(mapping, info.jmprel, info.pltrelsz, info.plt_rela,
                                      "the PLT relocation table")}) {
    all.insert(all.end(), table.begin(), table.end());
  }
  for (const Relocation& r : all) {
    const RelocationKind kind = KindOf(r.type);
    if (kind == RelocationKind::kNone) continue;
    if (kind == RelocationKind::kUnsupported) {
      image.Fail("it has relocation type " + std::to_string(r.type) +
                 ", which the runtime's loader does not apply (thread-local storage or non-PIC "
                 "code?)");
    }
    Addr* place = mapping.At<Addr>(r.offset, 1, "a relocated place");
    const Addr addend = r.addend ? *r.addend : *place;
    if (kind == RelocationKind::kRelative) {
      *place = base + addend;
    } else if (kind == RelocationKind::kSymbol) {
      *place = address_of(r.symbol);
    } else {
      *place = address_of(r.symbol) + addend;
    }
  }
  return missing;
}

using Hook = void (*)();

// A hook at library address `vaddr`, which must lie in an executable segment: an initializer
// pointing anywhere else is a corrupt library, refused before it runs.
Hook CodeAt(const ElfImage& image, const Mapping& mapping, const Segments& segments, Addr vaddr,
            const char* what) {
  const Addr start = vaddr & ~static_cast<Addr>(1);  // an armv7 Thumb function's address is odd
  for (const Phdr* load : segments.loads) {
    if ((load->p_flags & PF_X) && start >= load->p_vaddr && start - load->p_vaddr < load->p_memsz) {
      return reinterpret_cast<Hook>(mapping.base() + vaddr);
    }
  }
  image.Fail(std::string(what) + " points outside the library's code");
}

// The functions of an initializer or finalizer array (0 and -1 are placeholders).
std::vector<Hook> Hooks(const ElfImage& image, const Mapping& mapping, const Segments& segments,
                        uint64_t array, uint64_t array_bytes, const char* what) {
  std::vector<Hook> out;
  const uint64_t count = array_bytes / sizeof(Addr);
  if (count == 0) return out;
  const Addr* entries = mapping.At<Addr>(array, count, what);
  const Addr base = static_cast<Addr>(reinterpret_cast<uintptr_t>(mapping.base()));
  for (uint64_t i = 0; i < count; ++i) {
    if (entries[i] != 0 && entries[i] != kAddrMax) {
      out.push_back(CodeAt(image, mapping, segments, entries[i] - base, what));
    }
  }
  return out;
}

}  // namespace

LoadedElf::~LoadedElf() {
  for (void (*finalizer)() : finalizers_) finalizer();
  if (map_ != nullptr) munmap(map_, size_);
}

void* LoadedElf::Symbol(const std::string& name) const {
  auto it = exports_.find(name);
  return it == exports_.end() ? nullptr : it->second;
}

std::shared_ptr<LoadedElf> LoadElf(std::string_view bytes, const std::string& source,
                                   ElfImportResolver resolve) {
  // The headers are read in place: a library at an unaligned offset (an artifact's kernel
  // section) is copied first, since armv7 faults on unaligned multi-word loads.
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint64_t) != 0) {
    aligned.resize((bytes.size() + sizeof(uint64_t) - 1) / sizeof(uint64_t));
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    bytes = std::string_view(reinterpret_cast<const char*>(aligned.data()), bytes.size());
  }
  ElfImage image(bytes, source);
  const Segments segments = ScanSegments(image, *CheckHeader(image));

  std::shared_ptr<LoadedElf> library(new LoadedElf());
  library->size_ = segments.high - segments.low;
  void* map =
      mmap(nullptr, library->size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    image.Fail("cannot map " + std::to_string(library->size_) + " bytes: " + std::strerror(errno));
  }
  library->map_ = static_cast<char*>(map);
  Mapping mapping(image, library->map_ - segments.low, segments.low, segments.high);
  for (const Phdr* load : segments.loads) {
    std::memcpy(mapping.At<char>(load->p_vaddr, load->p_memsz, "a loadable segment"),
                bytes.data() + load->p_offset, load->p_filesz);
  }

  const DynamicInfo info = ReadDynamic(image, mapping, *segments.dynamic);
  const SymbolTable symbols(image, mapping, info);
  const std::vector<std::string> missing = Relocate(image, mapping, info, symbols, resolve);
  if (!missing.empty()) {
    std::string names;
    for (const std::string& name : missing) names += (names.empty() ? "'" : ", '") + name + "'";
    image.Fail("it imports " + names +
               ", which the runtime does not provide to the kernels it loads itself");
  }
  for (uint64_t i = 0; i < symbols.size(); ++i) {
    const Sym& symbol = symbols[i];
    const int binding = ELF64_ST_BIND(symbol.st_info);
    if (symbol.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK)) continue;
    // Integer arithmetic: a corrupt value must not make a pointer overflow.
    const uintptr_t address = reinterpret_cast<uintptr_t>(mapping.base()) + symbol.st_value;
    library->exports_.emplace(symbols.NameOf(symbol), reinterpret_cast<void*>(address));
  }
  Protect(image, library->map_, library->size_, segments.low, segments.loads, segments.relro);

  // Every hook is checked before any runs: DT_INIT, then DT_INIT_ARRAY in order; at unload
  // DT_FINI_ARRAY in reverse order, then DT_FINI.
  std::vector<Hook> initializers;
  if (info.init != 0)
    initializers.push_back(CodeAt(image, mapping, segments, info.init, "DT_INIT"));
  for (Hook hook : Hooks(image, mapping, segments, info.init_array, info.init_arraysz,
                         "the initializer array")) {
    initializers.push_back(hook);
  }
  std::vector<Hook> finalizers =
      Hooks(image, mapping, segments, info.fini_array, info.fini_arraysz, "the finalizer array");
  std::reverse(finalizers.begin(), finalizers.end());
  if (info.fini != 0) finalizers.push_back(CodeAt(image, mapping, segments, info.fini, "DT_FINI"));
  for (Hook hook : initializers) hook();
  library->finalizers_ = std::move(finalizers);
  return library;
}

}  // namespace runtime
}  // namespace tessera
