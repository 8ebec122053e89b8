/// \file
/// What the fleet's ends share besides grants: shared-token files, unguessable ids, constant-time
/// comparison of secrets, and the clock that expiry times are written in.
#ifndef TESSERA_FLEET_SECRETS_H_
#define TESSERA_FLEET_SECRETS_H_

#include <cstdint>
#include <string>

namespace tessera {
namespace fleet {

/// The gRPC metadata key and HTTP header that carry the fleet's shared token, in every client's
/// requests and every server's checks.
constexpr const char* kTokenHeader = "x-tessera-token";

/// The shared secret in `path` (surrounding whitespace dropped). Throws `ConfigError` when the
/// file cannot be read or is empty.
std::string ReadTokenFile(const std::string& path);

/// `n` random bytes from OpenSSL's generator.
std::string RandomBytes(int n);

/// `n` random bytes as lowercase hex (ids that cannot be guessed).
std::string RandomHexId(int n = 16);

/// Compares two secrets in constant time.
bool SecretsEqual(const std::string& a, const std::string& b);

/// Milliseconds since the Unix epoch (the clock grants' expiry is written in).
int64_t UnixMillis();

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_SECRETS_H_
