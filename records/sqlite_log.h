// Private to records/: the tuning log in a SQLite file (the default store).
#ifndef TESSERA_RECORDS_SQLITE_LOG_H_
#define TESSERA_RECORDS_SQLITE_LOG_H_

#include <memory>
#include <string>

#include "records/tuning_log.h"

namespace tessera {
namespace records {

/// Opens (creating when `create`) the SQLite tuning log at `path`; see `TuningLog::Open`.
std::unique_ptr<TuningLog> OpenSqliteLog(const std::string& path, bool create);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_SQLITE_LOG_H_
