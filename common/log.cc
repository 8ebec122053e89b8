#include "common/log.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <mutex>

#include "common/error.h"

namespace tessera {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mutex;
std::ostream* g_stream = nullptr;  // guarded by g_mutex; null: standard error

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?";
}

std::string Timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm utc;
  gmtime_r(&seconds, &utc);
  char buf[32];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", millis);
  return buf;
}

}  // namespace

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }

bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= g_level.load(); }

LogLevel ParseLogLevel(const std::string& name) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning, LogLevel::kError}) {
    std::string lower = LevelName(level);
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    if (name == lower) return level;
  }
  throw ConfigError("unknown log level '" + name + "' (expected debug, info, warning or error)");
}

void WriteLogLine(LogLevel level, const std::string& text) {
  std::string line = Timestamp() + " " + LevelName(level) + " " + text + "\n";
  std::lock_guard<std::mutex> lock(g_mutex);
  std::ostream& out = g_stream ? *g_stream : std::cerr;
  out << line << std::flush;
}

void SetLogStreamForTesting(std::ostream* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_stream = out;
}

}  // namespace tessera
