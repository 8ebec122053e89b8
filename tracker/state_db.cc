#include "tracker/state_db.h"

#include "common/error.h"
#include "common/file.h"

namespace tessera {
namespace tracker {

std::unique_ptr<Database> OpenStateDatabase(const std::string& dir, const std::string& file,
                                            const std::string& label) {
  MakeDirectories(dir, "--state");
  // Every failure of a tracker database is the user's to fix (a corrupt file, a full disk).
  auto db = std::make_unique<Database>(
      dir + "/" + file, /*create=*/true,
      [dir, label](const SqliteFailure& failure) {
        if (failure.opening) {
          throw ConfigError("--state '" + dir + "': cannot open " + failure.path + ": " +
                            failure.detail);
        }
        throw ConfigError(label + " '" + failure.path + "': " + failure.what + ": " +
                          failure.detail);
      },
      /*busy_timeout_ms=*/2000);
  db->Exec("PRAGMA journal_mode=WAL");
  db->Exec("PRAGMA synchronous=NORMAL");
  return db;
}

}  // namespace tracker
}  // namespace tessera
