// Private to records/: reading the configuration of records written before the `config` message,
// when it was JSON text (`{"index":N,"entity":[["tile_x","sp",[-1,8]],["ann","an",["vec"]],
// ["unroll","ot",4]]}`).
#ifndef TESSERA_RECORDS_LEGACY_CONFIG_H_
#define TESSERA_RECORDS_LEGACY_CONFIG_H_

#include "proto/tuning.pb.h"

namespace tessera {
namespace records {

/// The record with its configuration as a message: a `config_json` text is turned into `config`
/// (and dropped). Text that cannot be read is kept as it is, for the record's readers to reject.
tuning::MeasureRecord WithConfigMessage(tuning::MeasureRecord record);

}  // namespace records
}  // namespace tessera

#endif  // TESSERA_RECORDS_LEGACY_CONFIG_H_
