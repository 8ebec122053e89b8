#include "proto/server_proof.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace tessera {
namespace fleet {
namespace {

std::string HmacSha256(const std::string& key, const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest, &len);
  return std::string(reinterpret_cast<char*>(digest), len);
}

}  // namespace

std::string ServerProofKey(const std::string& grant_key, const tracker::v1::Grant& grant) {
  // Length-prefixed fields, as for grant signatures; the label keeps the two uses apart.
  std::string text = "tessera-server-proof-v1;";
  for (const std::string& field : {grant.session_id(), grant.server_id(), grant.signature()}) {
    text += std::to_string(field.size()) + ':' + field + ';';
  }
  return HmacSha256(grant_key, text);
}

std::string ServerProof(const std::string& proof_key, const std::string& nonce) {
  return HmacSha256(proof_key, "tessera-server-answer-v1;" + nonce);
}

}  // namespace fleet
}  // namespace tessera
