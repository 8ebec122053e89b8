#include "rpc_server/confine.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

// Landlock rights newer than some C libraries' kernel headers (the values are kernel ABI).
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

namespace tessera {
namespace fleet {
namespace {

std::string Why(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

// --- Network: a seccomp filter that refuses socket() (and every call of a foreign ABI). ---

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

std::string DenySockets() {
#if defined(__x86_64__) || defined(__aarch64__)
  constexpr uint32_t kDeny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  sock_filter filter[] = {
    // A call made through another ABI (i386's int 0x80 on x86-64) is refused whole: its
    // numbers differ (socketcall) and this filter does not read them.
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, kDeny),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
#if defined(__x86_64__)
    // x32 calls carry the same architecture with bit 30 set.
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, kDeny),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, kDeny),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
    return Why("prctl(PR_SET_SECCOMP)");
  }
  return "";
#else
  return "no seccomp filter for this architecture";
#endif
}

// --- Files: Landlock. Writes only below the session directory; reads there and in the
// system's directories (libraries, /etc, /proc, /sys, /dev). ---

struct RulesetAttr {  // struct landlock_ruleset_attr's first field, the only one used
  uint64_t handled_access_fs;
};
struct __attribute__((packed)) PathBeneathAttr {  // struct landlock_path_beneath_attr
  uint64_t allowed_access;
  int32_t parent_fd;
};

constexpr uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;

// Directories whose files a worker reads: its libraries (and an emulator's sysroot under /usr),
// configuration, the kernel's views, devices (a GPU's included).
const char* const kReadable[] = {"/usr",  "/lib", "/lib32", "/lib64", "/libx32", "/bin",
                                 "/sbin", "/etc", "/opt",   "/proc",  "/sys",    "/dev"};

// Adds a rule; a path that does not exist is no error (it grants nothing).
bool AddRule(int ruleset, const char* path, uint64_t rights, std::string* why) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ENOTDIR;
  struct stat st;
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;
  PathBeneathAttr rule{rights, fd};
  bool ok = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
  if (!ok) *why = Why("landlock_add_rule") + " (" + path + ")";
  close(fd);
  return ok;
}

std::string RestrictFiles(int* abi_out) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) return Why("landlock_create_ruleset");
  *abi_out = static_cast<int>(abi);
  uint64_t write = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                   LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                   LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                   LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                   LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) write |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) write |= LANDLOCK_ACCESS_FS_TRUNCATE;
  RulesetAttr attr{write | kRead};
  int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0));
  if (ruleset < 0) return Why("landlock_create_ruleset");
  std::string why;
  bool ok = AddRule(ruleset, ".", write | kRead, &why);
  for (const char* dir : kReadable) ok = ok && AddRule(ruleset, dir, kRead, &why);
  // Devices that are written to: the null devices and a GPU's (/dev/nvidia*).
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/full"}) {
    ok = ok && AddRule(ruleset, device, LANDLOCK_ACCESS_FS_WRITE_FILE, &why);
  }
  if (DIR* dev = opendir("/dev")) {
    while (dirent* entry = readdir(dev)) {
      if (ok && std::strncmp(entry->d_name, "nvidia", 6) == 0) {
        ok = AddRule(ruleset, ("/dev/" + std::string(entry->d_name)).c_str(),
                     LANDLOCK_ACCESS_FS_WRITE_FILE | kRead, &why);
      }
    }
    closedir(dev);
  }
  if (ok && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    ok = false;
    why = Why("landlock_restrict_self");
  }
  close(ruleset);
  return ok ? "" : why;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

}  // namespace

std::string ConfinementReport::Text() const {
  std::string text = "in force: " + (in_force.empty() ? std::string("nothing") : Join(in_force));
  text += "; not in force: " + (refused.empty() ? std::string("nothing") : Join(refused));
  if (!fatal.empty()) text += "; refused to run: " + fatal;
  return text;
}

ConfinementReport ConfineWorker(const WorkerConfinement& confinement) {
  ConfinementReport report;
  // Uploaded files are opened relative to the working directory, which stays usable after the
  // user change even where the directories above it are closed to the new user.
  if (chdir(confinement.directory.c_str()) != 0) {
    report.fatal = Why("chdir") + " (" + confinement.directory + ")";
    return report;
  }
  // Temporary files (a C artifact's compiled kernels) go there too, by a relative name: the
  // absolute one may pass through directories closed to the worker's user.
  setenv("TMPDIR", ".", 1);
  report.in_force.push_back("working directory: the session directory");

  // A network namespace of its own holds nothing but a loopback device that is down.
  if (unshare(CLONE_NEWNET) == 0) {
    report.in_force.push_back("network namespace (no interfaces)");
  } else {
    report.refused.push_back("network namespace (" + Why("unshare(CLONE_NEWNET)") + ")");
  }

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    report.fatal = Why("prctl(PR_SET_NO_NEW_PRIVS)");
    return report;
  }
  report.in_force.push_back("no_new_privs");

  if (confinement.uid != static_cast<uid_t>(-1) && confinement.uid != getuid()) {
    if (setgroups(0, nullptr) != 0 || setgid(confinement.gid) != 0 ||
        setuid(confinement.uid) != 0) {
      const int error = errno;
      report.fatal = "cannot run as user " + std::to_string(confinement.uid) + ":" +
                     std::to_string(confinement.gid) + ": " + std::strerror(error);
      return report;
    }
    if (setuid(0) == 0 || getuid() != confinement.uid || geteuid() != confinement.uid) {
      report.fatal = "the user change did not hold";
      return report;
    }
    report.in_force.push_back("user " + std::to_string(confinement.uid) + ":" +
                              std::to_string(confinement.gid) + " (no supplementary groups)");
  } else if (getuid() == 0) {
    report.refused.push_back("unprivileged user (the worker runs as root)");
  } else {
    report.in_force.push_back("the server's user " + std::to_string(getuid()));
  }

  int abi = 0;
  std::string files = RestrictFiles(&abi);
  if (files.empty()) {
    report.in_force.push_back("landlock ABI " + std::to_string(abi) +
                              " (writes only in the session directory; reads only there and in "
                              "/usr /lib* /bin /sbin /etc /opt /proc /sys /dev)");
  } else {
    report.refused.push_back("landlock (" + files +
                             "): files outside the session directory are "
                             "open to the worker as to its user");
  }

  std::string sockets = DenySockets();
  if (sockets.empty()) {
    report.in_force.push_back("seccomp (socket() fails with EPERM)");
  } else {
    report.refused.push_back("seccomp (" + sockets + ")");
  }
  return report;
}

bool LookUpUser(const std::string& name, uid_t* uid, gid_t* gid, std::string* why) {
  passwd entry;
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  char* end = nullptr;
  const unsigned long number = std::strtoul(name.c_str(), &end, 10);
  if (!name.empty() && *end == '\0') {
    getpwuid_r(static_cast<uid_t>(number), &entry, buffer.data(), buffer.size(), &found);
    if (found == nullptr) {  // a uid without an entry runs with the group of the same number
      *uid = static_cast<uid_t>(number);
      *gid = static_cast<gid_t>(number);
      return true;
    }
  } else {
    getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  }
  if (found == nullptr) {
    // A wholly static server (a phone's) has no name service: every name looks missing.
    *why = "no user '" + name + "' on this machine, or no name service to find it in (a wholly " +
           "static server, as on a phone, cannot look names up: give the user's number, e.g. " +
           "--worker-user 9999)";
    return false;
  }
  *uid = found->pw_uid;
  *gid = found->pw_gid;
  return true;
}

}  // namespace fleet
}  // namespace tessera
