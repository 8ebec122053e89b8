// The tracker's SQLite files (its state, its jobs) open the same way: one directory from --state,
// write-ahead logging, and every failure reported as the user's to fix.
#pragma once

#include <memory>
#include <string>

#include "common/sqlite.h"

namespace tessera {
namespace tracker {

/// Opens (creating `dir` and the file when missing) `dir`/`file` in WAL mode; failures throw
/// ConfigError naming --state when opening and `label` (e.g. "tracker jobs") afterwards.
std::unique_ptr<Database> OpenStateDatabase(const std::string& dir, const std::string& file,
                                            const std::string& label);

}  // namespace tracker
}  // namespace tessera
