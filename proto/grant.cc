#include "proto/grant.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

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

std::string GrantKeyFromToken(const std::string& token) {
  std::string text = "tessera-grant-key-v1:" + token;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

void SignGrant(const std::string& key, tracker::v1::Grant* grant) {
  grant->set_signature(HmacSha256(key, CanonicalText(*grant)));
}

bool GrantSignatureValid(const std::string& key, const tracker::v1::Grant& grant) {
  const std::string expected = HmacSha256(key, CanonicalText(grant));
  const std::string& given = grant.signature();
  return expected.size() == given.size() &&
         CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
}

}  // namespace fleet
}  // namespace tessera
