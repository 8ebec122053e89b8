// Private to records/: creating and migrating the database schema.
#ifndef TESSERA_RECORDS_SCHEMA_H_
#define TESSERA_RECORDS_SCHEMA_H_

#include "common/sqlite.h"

namespace tessera {
namespace records {

/// Brings `db` to the current schema version (creating tables in a new file, migrating an older
/// one); throws `LogError` for a newer schema or a file that is not a tuning log.
void MigrateSchema(Database* db);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_SCHEMA_H_
