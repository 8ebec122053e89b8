// Private to records/: creating and migrating the tuning log's schema, in both stores. Both
// stores count the same schema versions; each version's change is written once per dialect, side
// by side in schema.cc.
#ifndef TESSERA_RECORDS_SCHEMA_H_
#define TESSERA_RECORDS_SCHEMA_H_

#include "common/postgres.h"
#include "common/sqlite.h"

namespace tessera {
namespace records {

/// Brings `db` to the current schema version (creating tables in a new file, migrating an older
/// one); throws `LogError` for a newer schema or a file that is not a tuning log.
void MigrateSchema(Database* db);

/// Brings the PostgreSQL database behind `db` to the current schema version, creating the tables
/// when it holds none and `create` is set; throws `LogError` when it holds none and `create` is
/// not set, holds a newer schema, or holds a `records` table that is not a tuning log's.
/// Concurrent openers queue on an advisory lock, so that one of them migrates.
void MigrateSchema(PostgresConnection* db, bool create);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_SCHEMA_H_
