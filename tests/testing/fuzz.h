/// \file
/// Bounded random-mutation fuzzing inside a gtest: every input of a checked-in corpus, then
/// random mutations of them (bit flips, byte edits, cut, duplicated and spliced ranges,
/// dictionary tokens) for a bounded time. The target throws nothing but its documented errors,
/// which it catches itself; anything else escaping is a failure naming the input. Under
/// `--config=asan` a memory error stops the test. Environment: `TESSERA_FUZZ_SEED=N` replays a
/// run, `TESSERA_FUZZ_SECONDS=S` sets the time per target (default 2), `TESSERA_FUZZ_VERBOSE=1`
/// prints every input before it runs (to find the one that crashed).
#ifndef TESSERA_TESTS_TESTING_FUZZ_H_
#define TESSERA_TESTS_TESTING_FUZZ_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tessera {
namespace testing {

/// Bounds and hints of one fuzzing run.
struct FuzzOptions {
  std::vector<std::string> dictionary;  ///< tokens worth inserting (keywords, separators)
  size_t max_size = 4096;               ///< longer mutants are cut
  int64_t max_runs = 200000;            ///< stop after this many inputs
};

/// Loads every file of `corpus_dir` (relative to the runfiles) as an input.
std::vector<std::string> LoadCorpus(const std::string& corpus_dir);

/// Runs `target` on `corpus`, then on mutants until the time or run bound; returns the number of
/// inputs run. An exception escaping `target` fails the test (gtest ADD_FAILURE) with the input.
int64_t Fuzz(const std::vector<std::string>& corpus,
             const std::function<void(const std::string&)>& target,
             const FuzzOptions& options = FuzzOptions());

/// `input` with non-printable bytes as \xNN (for messages).
std::string Escaped(const std::string& input);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TESTING_FUZZ_H_
