/// \file
/// Proof that a device server is the granted one. Whoever holds a server's port receives the
/// client's connection, so the client checks on connect, before any upload: the tracker hands
/// the client a proof key derived from its grant key and the grant, the granted server derives
/// the same key, and answers the client's random nonce with an HMAC that no process without the
/// grant key can compute.
#ifndef TESSERA_PROTO_SERVER_PROOF_H_
#define TESSERA_PROTO_SERVER_PROOF_H_

#include <string>

#include "proto/tracker.pb.h"

namespace tessera {
namespace fleet {

/// The key with which the server named in `grant` proves itself (tracker and server both
/// compute it from the grant-signing key).
std::string ServerProofKey(const std::string& grant_key, const tracker::v1::Grant& grant);

/// The server's answer to a client's `nonce`.
std::string ServerProof(const std::string& proof_key, const std::string& nonce);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_PROTO_SERVER_PROOF_H_
