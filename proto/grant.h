/// \file
/// Grants: the tracker signs each session grant with HMAC-SHA256 and the device server verifies
/// it, so only clients the tracker admitted can open a session on a device. Token files, random
/// ids and the clock are in `fleet/secrets.h`.
#ifndef TESSERA_PROTO_GRANT_H_
#define TESSERA_PROTO_GRANT_H_

#include <string>

#include "proto/tracker.pb.h"

namespace tessera {
namespace fleet {

/// The grant-signing key derived from a shared token (tracker and servers derive the same one).
std::string GrantKeyFromToken(const std::string& token);

/// HMAC-SHA256 of `text` under `key` (raw bytes).
std::string HmacSha256(const std::string& key, const std::string& text);

/// Fills `grant->signature` from the other fields.
void SignGrant(const std::string& key, tracker::v1::Grant* grant);

/// True when `grant`'s signature matches its fields under `key` (constant-time comparison).
bool GrantSignatureValid(const std::string& key, const tracker::v1::Grant& grant);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_PROTO_GRANT_H_
