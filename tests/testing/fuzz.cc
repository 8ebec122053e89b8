#include "tests/testing/fuzz.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace tessera {
namespace testing {
namespace {

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::strtoull(value, nullptr, 10) : fallback;
}

class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<std::string>& corpus, const FuzzOptions& options)
      : rng_(seed), corpus_(corpus), options_(options) {}

  std::string Next() {
    std::string input = corpus_.empty() ? std::string() : corpus_[Below(corpus_.size())];
    for (size_t edits = 1 + Below(4); edits > 0; --edits) Mutate(&input);
    if (input.size() > options_.max_size) input.resize(options_.max_size);
    return input;
  }

 private:
  size_t Below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  char RandomByte() {
    // Mostly printable: parsers reject binary noise at the first byte.
    static const std::string kInteresting = "0123456789-+.,:;()[]{}\"'\\/ =_x\n\t\0\xff";
    return Below(4) == 0 ? static_cast<char>(Below(256)) : kInteresting[Below(kInteresting.size())];
  }

  void Mutate(std::string* s) {
    size_t at = Below(s->size() + 1);
    switch (Below(8)) {
      case 0:
        if (!s->empty()) (*s)[Below(s->size())] ^= static_cast<char>(1 << Below(8));
        break;
      case 1:
        if (!s->empty()) (*s)[Below(s->size())] = RandomByte();
        break;
      case 2:
        s->insert(at, 1, RandomByte());
        break;
      case 3:
        s->erase(at, 1 + Below(8));
        break;
      case 4: {  // duplicate a range
        size_t from = Below(s->size() + 1);
        s->insert(at, s->substr(from, 1 + Below(16)));
        break;
      }
      case 5:
        if (!options_.dictionary.empty()) {
          s->insert(at, options_.dictionary[Below(options_.dictionary.size())]);
        }
        break;
      case 6:  // splice with another input
        if (!corpus_.empty()) {
          const std::string& other = corpus_[Below(corpus_.size())];
          *s = s->substr(0, at) + other.substr(std::min(at, other.size()));
        }
        break;
      default:  // replace a number with an extreme one
        s->insert(at, Below(2) ? "-9223372036854775808" : "99999999999999999999");
        break;
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>& corpus_;
  const FuzzOptions& options_;
};

}  // namespace

std::vector<std::string> LoadCorpus(const std::string& corpus_dir) {
  std::vector<std::string> names;
  if (DIR* dir = opendir(corpus_dir.c_str())) {
    while (dirent* entry = readdir(dir)) {
      if (entry->d_name[0] != '.') names.push_back(entry->d_name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());  // a seed replays the same run
  std::vector<std::string> corpus;
  for (const std::string& name : names) {
    std::ifstream in(corpus_dir + "/" + name, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    corpus.push_back(bytes.str());
  }
  return corpus;
}

std::string Escaped(const std::string& input) {
  std::string out;
  for (unsigned char c : input) {
    if (c >= 32 && c < 127 && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

int64_t Fuzz(const std::vector<std::string>& corpus,
             const std::function<void(const std::string&)>& target, const FuzzOptions& options) {
  const uint64_t seed = EnvNumber("TESSERA_FUZZ_SEED", 1);
  const bool verbose = EnvNumber("TESSERA_FUZZ_VERBOSE", 0) != 0;
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(EnvNumber("TESSERA_FUZZ_SECONDS", 2));
  std::printf("fuzz: seed %llu (TESSERA_FUZZ_SEED replays), %zu corpus inputs\n",
              static_cast<unsigned long long>(seed), corpus.size());
  Mutator mutator(seed, corpus, options);
  int64_t runs = 0;
  int failures = 0;
  while (runs < options.max_runs && failures < 5) {
    bool from_corpus = static_cast<size_t>(runs) < corpus.size();
    if (!from_corpus && std::chrono::steady_clock::now() >= give_up) break;
    std::string input = from_corpus ? corpus[static_cast<size_t>(runs)] : mutator.Next();
    if (verbose) {
      std::printf("fuzz input %lld: %s\n", static_cast<long long>(runs), Escaped(input).c_str());
      std::fflush(stdout);  // the input that crashes or hangs is the last one printed
    }
    ++runs;
    try {
      target(input);
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << "input " << runs - 1 << " (seed " << seed << ") '" << Escaped(input)
                    << "' threw an undocumented error: " << e.what();
    }
  }
  std::printf("fuzz: %lld inputs\n", static_cast<long long>(runs));
  return runs;
}

}  // namespace testing
}  // namespace tessera
