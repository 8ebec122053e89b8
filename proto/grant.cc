#include "proto/grant.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace tessera {
namespace fleet {
namespace {

// Every field is length-prefixed so that no two different grants share a signed text.
std::string CanonicalText(const tracker::v1::Grant& grant) {
  std::ostringstream out;
  for (const std::string& field :
       {std::string("tessera-grant-v1"), grant.session_id(), grant.key(), grant.server_id(),
        grant.server_address(), std::to_string(grant.expires_unix_ms())}) {
    out << field.size() << ':' << field << ';';
  }
  return out.str();
}

}  // namespace

std::string HmacSha256(const std::string& key, const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest, &len);
  return std::string(reinterpret_cast<char*>(digest), len);
}

std::string ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read token file '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string token = buffer.str();
  const char* space = " \t\r\n";
  size_t begin = token.find_first_not_of(space);
  if (begin == std::string::npos) throw ConfigError("token file '" + path + "' is empty");
  size_t end = token.find_last_not_of(space);
  return token.substr(begin, end - begin + 1);
}

std::string GrantKeyFromToken(const std::string& token) {
  std::string text = "tessera-grant-key-v1:" + token;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
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

void SignGrant(const std::string& key, tracker::v1::Grant* grant) {
  grant->set_signature(HmacSha256(key, CanonicalText(*grant)));
}

bool GrantSignatureValid(const std::string& key, const tracker::v1::Grant& grant) {
  return SecretsEqual(HmacSha256(key, CanonicalText(grant)), grant.signature());
}

int64_t UnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool SecretsEqual(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace fleet
}  // namespace tessera
