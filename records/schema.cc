#include "records/schema.h"

#include <sqlite3.h>

#include <iterator>
#include <string>

#include "records/log_error.h"
#include "records/tuning_log.h"

namespace tessera {
namespace records {
namespace {

// Migration i brings the schema from version i to i + 1, in SQLite's dialect (kMigrations) and
// PostgreSQL's (kPostgresMigrations). Append to both, never edit.
constexpr const char* kMigrations[] = {
    R"sql(
    CREATE TABLE records (
      id INTEGER PRIMARY KEY,
      workload_key TEXT NOT NULL,
      template TEXT NOT NULL,
      target TEXT NOT NULL,
      device_key TEXT NOT NULL,
      config_index INTEGER NOT NULL,
      config_json TEXT NOT NULL,
      costs TEXT NOT NULL,
      mean_cost REAL,
      error_kind INTEGER NOT NULL,
      error_message TEXT NOT NULL,
      timestamp REAL NOT NULL,
      tuner_version TEXT NOT NULL,
      all_cost REAL NOT NULL
    );
    CREATE INDEX records_by_workload ON records (workload_key, target, mean_cost);
    CREATE INDEX records_by_template ON records (template, target);
    CREATE TABLE tessera_log (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO tessera_log VALUES ('format', 'tessera tuning log');
    )sql",
    // 2: the config as a serialized tessera.tuning.Config (config_json stays for older rows).
    R"sql(
    ALTER TABLE records ADD COLUMN config BLOB;
    )sql",
    // 3: the template version of each record; rows written before it count as version 1.
    R"sql(
    ALTER TABLE records ADD COLUMN template_version INTEGER NOT NULL DEFAULT 1;
    )sql",
    // 4: records measured inside a model build by the end-of-tuning check.
    R"sql(
    ALTER TABLE records ADD COLUMN in_model INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 5: records timed with cold weights, which rank first among their workload's.
    R"sql(
    ALTER TABLE records ADD COLUMN cold_weights INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX records_best ON records (workload_key, target, cold_weights DESC, mean_cost);
    )sql",
};

constexpr const char* kPostgresMigrations[] = {
    R"sql(
    CREATE TABLE records (
      id BIGSERIAL PRIMARY KEY,
      workload_key TEXT NOT NULL,
      template TEXT NOT NULL,
      target TEXT NOT NULL,
      device_key TEXT NOT NULL,
      config_index BIGINT NOT NULL,
      config_json TEXT NOT NULL,
      costs TEXT NOT NULL,
      mean_cost DOUBLE PRECISION,
      error_kind INTEGER NOT NULL,
      error_message TEXT NOT NULL,
      timestamp DOUBLE PRECISION NOT NULL,
      tuner_version TEXT NOT NULL,
      all_cost DOUBLE PRECISION NOT NULL
    );
    -- id closes the index (SQLite's indexes end in the rowid by themselves): the best record
    -- of a workload is the index's first entry, read without touching the workload's others.
    CREATE INDEX records_by_workload ON records (workload_key, target, mean_cost, id);
    CREATE INDEX records_by_template ON records (template, target);
    CREATE TABLE tessera_log (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO tessera_log VALUES ('format', 'tessera tuning log'), ('schema_version', '0');
    )sql",
    R"sql(
    ALTER TABLE records ADD COLUMN config BYTEA;
    )sql",
    R"sql(
    ALTER TABLE records ADD COLUMN template_version INTEGER NOT NULL DEFAULT 1;
    )sql",
    R"sql(
    ALTER TABLE records ADD COLUMN in_model INTEGER NOT NULL DEFAULT 0;
    )sql",
    R"sql(
    ALTER TABLE records ADD COLUMN cold_weights INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX records_best ON records (workload_key, target, cold_weights DESC, mean_cost, id);
    )sql",
};

static_assert(std::size(kMigrations) == kTuningLogSchemaVersion,
              "add a migration when bumping the version");
static_assert(std::size(kPostgresMigrations) == std::size(kMigrations),
              "each migration in both dialects");

// Opening queues here, so that one opener creates or migrates while the others wait.
constexpr int64_t kMigrationLock = 0x7465737365726901;  // "tessera" + 1

int UserVersion(Database* db) {
  Statement q(*db, "PRAGMA user_version");
  q.Step();
  return static_cast<int>(q.Int(0));
}

bool IsEmpty(Database* db) {
  Statement q(*db, "SELECT count(*) FROM sqlite_master");
  q.Step();
  return q.Int(0) == 0;
}

}  // namespace

void MigrateSchema(Database* db) {
  const int latest = static_cast<int>(std::size(kMigrations));
  int version = UserVersion(db);
  if (version > latest) {
    throw LogError("tuning log '" + db->path() + "' has schema version " + std::to_string(version) +
                   ", newer than this Tessera understands (" + std::to_string(latest) +
                   "); use a newer Tessera to read it");
  }
  if (version == 0 && !IsEmpty(db)) {
    throw LogError("'" + db->path() + "' is a SQLite database but not a Tessera tuning log");
  }
  if (version == latest) return;
  Transaction transaction(*db);
  version = UserVersion(db);  // another process may have migrated meanwhile
  for (int v = version; v < latest; ++v) {
    db->Exec(kMigrations[v]);
    db->Exec("PRAGMA user_version = " + std::to_string(v + 1));
  }
  transaction.Commit();
}

void MigrateSchema(PostgresConnection* db, bool create) {
  const int latest = static_cast<int>(std::size(kPostgresMigrations));
  PostgresTransaction transaction(*db, kMigrationLock);
  PostgresRows tables = db->Query(
      "SELECT to_regclass('tessera_log') IS NOT NULL, to_regclass('records') IS NOT NULL");
  const bool is_log = tables.Text(0, 0) == "t";
  int version = 0;
  if (is_log) {
    PostgresRows row = db->Query("SELECT value FROM tessera_log WHERE key = 'schema_version'");
    if (row.size() == 0) {
      throw LogError(
          "'" + db->uri() +
          "' has a tessera_log table but no schema version; it is not a Tessera tuning log");
    }
    version = static_cast<int>(row.Int(0, 0));
  } else if (tables.Text(0, 1) == "t") {
    throw LogError("'" + db->uri() +
                   "' has a 'records' table that is not a Tessera tuning log's; use another "
                   "database");
  } else if (!create) {
    throw LogError("'" + db->uri() +
                   "' holds no Tessera tuning log yet (tessera tune or tessera log import "
                   "creates one)");
  }
  if (version > latest) {
    throw LogError("tuning log '" + db->uri() + "' has schema version " + std::to_string(version) +
                   ", newer than this Tessera understands (" + std::to_string(latest) +
                   "); use a newer Tessera to read it");
  }
  for (int v = version; v < latest; ++v) {
    db->Exec(kPostgresMigrations[v]);
    db->Query("UPDATE tessera_log SET value = ? WHERE key = 'schema_version'",
              {std::to_string(v + 1)});
  }
  transaction.Commit();
}

}  // namespace records
}  // namespace tessera
