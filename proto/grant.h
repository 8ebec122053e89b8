/// \file
/// Grants: the tracker signs each session grant with HMAC-SHA256 and the device server verifies
/// it, so only clients the tracker admitted can open a session on a device.
#ifndef TESSERA_PROTO_GRANT_H_
#define TESSERA_PROTO_GRANT_H_

#include <cstdint>
#include <stdexcept>
#include <string>

#include "proto/tracker.pb.h"

namespace tessera {
namespace fleet {

/// Bad configuration or input of the fleet (unreadable token file, malformed flag); the message
/// names what and where.
class ConfigError : public std::runtime_error {
 public:
  /// Creates an error with a complete, user-readable message.
  explicit ConfigError(const std::string& msg) : std::runtime_error(msg) {}
};

/// The shared secret in `path` (surrounding whitespace dropped). Throws `ConfigError` when the
/// file cannot be read or is empty.
std::string ReadTokenFile(const std::string& path);

/// The grant-signing key derived from a shared token (tracker and servers derive the same one).
std::string GrantKeyFromToken(const std::string& token);

/// `n` random bytes from OpenSSL's generator.
std::string RandomBytes(int n);

/// `n` random bytes as lowercase hex (ids that cannot be guessed).
std::string RandomHexId(int n = 16);

/// HMAC-SHA256 of `text` under `key` (raw bytes).
std::string HmacSha256(const std::string& key, const std::string& text);

/// Fills `grant->signature` from the other fields.
void SignGrant(const std::string& key, tracker::v1::Grant* grant);

/// True when `grant`'s signature matches its fields under `key` (constant-time comparison).
bool GrantSignatureValid(const std::string& key, const tracker::v1::Grant& grant);

/// Milliseconds since the Unix epoch (the clock grants' expiry is written in).
int64_t UnixMillis();

/// Compares two secrets in constant time.
bool SecretsEqual(const std::string& a, const std::string& b);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_PROTO_GRANT_H_
