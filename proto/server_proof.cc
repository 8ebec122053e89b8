#include "proto/server_proof.h"

#include "proto/grant.h"

namespace tessera {
namespace fleet {

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
