// Private to records/: the tuning log in a PostgreSQL database (a lab's or a company's shared
// store).
#ifndef TESSERA_RECORDS_POSTGRES_LOG_H_
#define TESSERA_RECORDS_POSTGRES_LOG_H_

#include <memory>
#include <string>

#include "records/tuning_log.h"

namespace tessera {
namespace records {

/// Connects to the database at `uri` and opens its tuning log, creating the tables when `create`;
/// see `TuningLog::Open`.
std::unique_ptr<TuningLog> OpenPostgresLog(const std::string& uri, bool create);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_POSTGRES_LOG_H_
