/* A kernel that tries to leave the call worker's confinement (rpc_server/confine.h), uploaded by
 * worker_confinement_test. Each attempt's errno (0: it succeeded) goes into an int64 array. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/c_backend_api.h"

/* Reads "Name:\tN" from /proc/self/status; -1 when missing. */
static int64_t StatusField(const char* name) {
  FILE* status = fopen("/proc/self/status", "r");
  if (status == NULL) return -1;
  char line[256];
  int64_t value = -1;
  size_t length = strlen(name);
  while (fgets(line, sizeof(line), status) != NULL) {
    if (strncmp(line, name, length) == 0 && line[length] == ':') {
      long long number = -1;
      sscanf(line + length + 1, "%lld", &number);
      value = number;
      break;
    }
  }
  fclose(status);
  return value;
}

static int64_t OpenErrno(const char* path, int flags) {
  int fd = open(path, flags, 0644);
  if (fd < 0) return errno;
  if ((flags & O_ACCMODE) != O_RDONLY && write(fd, "escaped\n", 8) != 8) {
    int error = errno;
    close(fd);
    return error;
  }
  close(fd);
  return 0;
}

/* escape(paths, results, port): paths is "READ_PATH\0WRITE_PATH\0" (uint8); results (int64, 9):
 * socket errno, connect errno (-1: not tried), read errno, write errno, uid, NoNewPrivs,
 * Seccomp, network namespace inode, errno of a write inside the working directory. */
int32_t escape(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
               int32_t* ret_code, void* resource) {
  (void)ret;
  (void)ret_code;
  (void)resource;
  if (num_args != 3 || codes[0] != kTesseraDLTensorHandle || codes[1] != kTesseraDLTensorHandle ||
      codes[2] != kTesseraInt) {
    TesseraAPISetLastError("escape expects (paths, results, port)");
    return -1;
  }
  const char* read_path = (const char*)((DLTensor*)args[0].v_handle)->data;
  const char* write_path = read_path + strlen(read_path) + 1;
  int64_t* results = (int64_t*)((DLTensor*)args[1].v_handle)->data;

  int fd = socket(AF_INET, SOCK_STREAM, 0);
  results[0] = fd < 0 ? errno : 0;
  results[1] = -1;
  if (fd >= 0) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)args[2].v_int64);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    results[1] = connect(fd, (struct sockaddr*)&address, sizeof(address)) == 0 ? 0 : errno;
    close(fd);
  }
  results[2] = OpenErrno(read_path, O_RDONLY);
  results[3] = OpenErrno(write_path, O_WRONLY | O_CREAT | O_TRUNC);
  results[4] = getuid();
  results[5] = StatusField("NoNewPrivs");
  results[6] = StatusField("Seccomp");
  struct stat ns;
  results[7] = stat("/proc/self/ns/net", &ns) == 0 ? (int64_t)ns.st_ino : -1;
  results[8] = OpenErrno("inside.txt", O_WRONLY | O_CREAT | O_TRUNC);
  return 0;
}
