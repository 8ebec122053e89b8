/// \file
/// The Tessera release: what every program's `--version` prints and every artifact records.
#ifndef TESSERA_COMMON_VERSION_H_
#define TESSERA_COMMON_VERSION_H_

namespace tessera {

/// The release of this build of Tessera (docs/compatibility.md says what each version reads).
constexpr const char* kTesseraVersion = "0.1.0";

}  // namespace tessera

#endif  // TESSERA_COMMON_VERSION_H_
