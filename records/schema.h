// Private to tuner/log: creating and migrating the database schema.
#ifndef TESSERA_TUNER_LOG_SCHEMA_H_
#define TESSERA_TUNER_LOG_SCHEMA_H_

#include "common/sqlite.h"

namespace tessera {
namespace tuner {

/// Brings `db` to the current schema version (creating tables in a new file, migrating an older
/// one); throws `LogError` for a newer schema or a file that is not a tuning log.
void MigrateSchema(Database* db);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_LOG_SCHEMA_H_
