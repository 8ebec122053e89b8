// Private to records/: the tuning log's queries and row mapping, shared by its SQLite and
// PostgreSQL stores so that both read and write the same columns the same way. Each store only
// executes these (binding `?` placeholders in order).
#ifndef TESSERA_RECORDS_RECORD_SQL_H_
#define TESSERA_RECORDS_RECORD_SQL_H_

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/sql_value.h"
#include "proto/tuning.pb.h"
#include "records/legacy_config.h"
#include "records/record_filter.h"

namespace tessera {
namespace records {

/// The columns a record is read from, in `RowToRecord`'s order.
extern const char* const kRecordColumns;

/// INSERT of `rows` records in one statement; bind each one's `InsertValues` in turn.
std::string InsertSql(int rows = 1);
/// The values of `InsertSql` for `record` (its config message filled from older fields first).
std::vector<SqlValue> InsertValues(const tuning::MeasureRecord& record);

/// The best successful record of one workload and target; bind the key and the target.
std::string BestSql();
/// Config indices measured as tasks; bind the key and the target.
std::string MeasuredConfigsSql();
/// The identity columns of a workload's records (for imports); bind the key and the target.
std::string IdentitiesSql();
/// Number of records.
std::string CountSql();

/// A WHERE clause and the text values it binds.
struct Where {
  std::string sql;
  std::vector<std::string> values;
};
/// The WHERE clause of `filter`.
Where BuildWhere(const RecordFilter& filter);
/// Records matching `where`, in insertion order; with a limit, the newest `limit` of them.
std::string ListSql(const Where& where, int64_t limit);
/// A batch of `batch` records matching `where` after the one with row id `?` (bound after the
/// clause's values), in insertion order; the row id is column `kScanIdColumn`.
std::string ScanSql(const Where& where, int64_t batch);
/// The column of `ScanSql`'s rows that holds the row id (after the record's columns).
constexpr int kScanIdColumn = 15;
/// Per-(workload, target) counts and best mean cost for `where`.
std::string StatsSql(const Where& where);

/// The costs column: a JSON array written with %.17g, so that it round-trips.
std::string CostsToText(const tuning::MeasureRecord& record);

/// Reads a record from a row of `kRecordColumns`. `Row` has Text, Bytes, Int, Real and IsNull
/// taking a 0-based column.
template <typename Row>
tuning::MeasureRecord RowToRecord(const Row& row);

namespace internal {
void CostsFromText(const std::string& text, tuning::MeasureRecord* record);
}  // namespace internal

template <typename Row>
tuning::MeasureRecord RowToRecord(const Row& q) {
  tuning::MeasureRecord r;
  r.set_workload_key(q.Text(0));
  r.set_target(q.Text(1));
  r.set_device_key(q.Text(2));
  r.set_config_index(q.Int(3));
  r.set_config_json(q.Text(4));
  internal::CostsFromText(q.Text(5), &r);
  r.set_error_kind(static_cast<tuning::ErrorKind>(q.Int(6)));
  r.set_error_message(q.Text(7));
  r.set_timestamp(q.Real(8));
  r.set_tuner_version(q.Text(9));
  r.set_all_cost(q.Real(10));
  if (!q.IsNull(11)) r.mutable_config()->ParseFromString(q.Bytes(11));
  r.set_template_version(static_cast<int32_t>(q.Int(12)));
  r.set_in_model(q.Int(13) != 0);
  r.set_cold_weights(q.Int(14) != 0);
  return WithConfigMessage(std::move(r));  // rows written before the config column
}

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_RECORD_SQL_H_
