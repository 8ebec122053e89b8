#include "fleet/secrets.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <chrono>
#include <stdexcept>

#include "common/error.h"
#include "common/file.h"

namespace tessera {
namespace fleet {

std::string ReadTokenFile(const std::string& path) {
  std::string token = ReadFile(path, "token file");
  const char* space = " \t\r\n";
  size_t begin = token.find_first_not_of(space);
  if (begin == std::string::npos) throw ConfigError("token file '" + path + "' is empty");
  size_t end = token.find_last_not_of(space);
  return token.substr(begin, end - begin + 1);
}

std::string RandomBytes(int n) {
  std::string bytes(static_cast<size_t>(n), '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&bytes[0]), n) != 1) {
    throw std::runtime_error("OpenSSL's random generator failed");
  }
  return bytes;
}

std::string RandomHexId(int n) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : RandomBytes(n)) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

bool SecretsEqual(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

int64_t UnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace fleet
}  // namespace tessera
