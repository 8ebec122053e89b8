#include "proto/grant.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
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

namespace {

// HMAC() fetches the digest from OpenSSL 3's providers and sets up its key on every call: 7% of
// the tracker's CPU at a few thousand grants a second. Each thread keeps one context per key
// and re-initializes it with the key it already holds.
class CachedHmac {
 public:
  ~CachedHmac() { EVP_MAC_CTX_free(ctx_); }

  std::string Digest(const std::string& key, const std::string& text) {
    if (ctx_ == nullptr || key != key_) {
      EVP_MAC_CTX_free(ctx_);
      static EVP_MAC* const hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
      ctx_ = hmac ? EVP_MAC_CTX_new(hmac) : nullptr;
      char digest_name[] = "SHA256";
      OSSL_PARAM params[] = {
          OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
          OSSL_PARAM_construct_end()};
      if (ctx_ == nullptr || EVP_MAC_init(ctx_, reinterpret_cast<const unsigned char*>(key.data()),
                                          key.size(), params) != 1) {
        EVP_MAC_CTX_free(ctx_);
        ctx_ = nullptr;
        return OneShot(key, text);
      }
      key_ = key;
    } else if (EVP_MAC_init(ctx_, nullptr, 0, nullptr) != 1) {
      return OneShot(key, text);
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    size_t len = 0;
    if (EVP_MAC_update(ctx_, reinterpret_cast<const unsigned char*>(text.data()), text.size()) !=
            1 ||
        EVP_MAC_final(ctx_, digest, &len, sizeof(digest)) != 1) {
      return OneShot(key, text);
    }
    return std::string(reinterpret_cast<char*>(digest), len);
  }

 private:
  static std::string OneShot(const std::string& key, const std::string& text) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest, &len);
    return std::string(reinterpret_cast<char*>(digest), len);
  }

  EVP_MAC_CTX* ctx_ = nullptr;
  std::string key_;
};

}  // namespace

std::string HmacSha256(const std::string& key, const std::string& text) {
  thread_local CachedHmac hmac;
  return hmac.Digest(key, text);
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
