/// \file
/// A real PostgreSQL server for a test binary (tests/testing/postgres.sh: Debian's binaries, a
/// fresh cluster under /tmp, a Unix socket only), started once and stopped when the binary ends.
#ifndef TESSERA_TESTS_TESTING_POSTGRES_SERVER_H_
#define TESSERA_TESTS_TESTING_POSTGRES_SERVER_H_

#include <string>

namespace tessera {
namespace testing {

/// The server of this test binary, started on first use. Returns false and says why in
/// `why_not` when it cannot run here (no server binaries): the caller skips. Throws
/// `std::runtime_error` when the binaries are there but the server does not start: that fails.
bool PostgresAvailable(std::string* why_not);

/// The URI of a new, empty database on the server (which must be available).
std::string NewPostgresDatabase();

/// For a test run on each store: `store` "sqlite" gives an empty `location` (the caller's own
/// file), "postgresql" a new database's URI. False, with `why_not`, when that needs a server that
/// cannot run here: the caller skips.
bool StoreLocation(const std::string& store, std::string* location, std::string* why_not);

/// Stops the server at once, as a crash would, and starts it again: connections break, data stays.
void RestartPostgres();

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TESTING_POSTGRES_SERVER_H_
