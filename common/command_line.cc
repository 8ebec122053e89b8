#include "common/command_line.h"

#include <cstdlib>
#include <ostream>

#include "common/error.h"
#include "common/log.h"
#include "common/version.h"

namespace tessera {

void AddVersionFlag(CLI::App& app, const std::string& formats) {
  app.set_version_flag("--version", app.get_name() + " " + kTesseraVersion + " (" + formats + ")",
                       "print the version and the file formats it reads and writes, then exit");
}

int RunCommandLine(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                   std::ostream& err, const std::function<int()>& run) {
  try {
    app.parse(argc, argv);
    return run ? run() : kExitOk;
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e, out, err);
  } catch (const CLI::RuntimeError& e) {  // a command that ends quietly with its own status
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    err << "error: " << e.what() << "\nRun with --help for more information." << std::endl;
    return kExitUserError;
  } catch (const UserError& e) {
    err << "error: " << e.what() << std::endl;
    return kExitUserError;
  } catch (const ExternalError& e) {
    err << "error: " << e.what() << std::endl;
    return kExitFailed;
  } catch (const InternalError& e) {
    err << e.what() << std::endl;
    return kExitInternalError;
  } catch (const std::exception& e) {
    err << "internal error: " << e.what() << std::endl;
    return kExitInternalError;
  }
}

void SplitHostPort(const std::string& flag, const std::string& address, std::string* host,
                   int* port) {
  size_t colon = address.rfind(':');
  char* end = nullptr;
  long value = colon == std::string::npos ? -1 : std::strtol(address.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || colon == 0 || end == address.c_str() + colon + 1 ||
      *end != '\0' || value < 0 || value > 65535) {
    throw ConfigError("--" + flag + " '" + address + "': expected HOST:PORT");
  }
  *host = address.substr(0, colon);
  *port = static_cast<int>(value);
}

void AddLogLevelOption(CLI::App& app) {
  app.add_option_function<std::string>(
         "--log-level", [](const std::string& name) { SetLogLevel(ParseLogLevel(name)); },
         "least important events logged")
      ->check(CLI::IsMember({"debug", "info", "warning", "error"}))
      ->default_str("info");
}

CLI::Validator HostPort() {
  return CLI::Validator(
      [](std::string& value) {
        std::string host;
        int port = 0;
        try {
          SplitHostPort("", value, &host, &port);
        } catch (const ConfigError&) {
          return std::string("expected HOST:PORT, got '" + value + "'");
        }
        return std::string();
      },
      "HOST:PORT");
}

namespace {

CLI::Validator NumberCheck(bool allow_zero, const std::string& rule) {
  return CLI::Validator(
      [allow_zero, rule](std::string& value) {
        char* end = nullptr;
        double number = std::strtod(value.c_str(), &end);
        bool ok = !value.empty() && *end == '\0' && (number > 0 || (allow_zero && number == 0));
        return ok ? std::string() : "must " + rule + ", got '" + value + "'";
      },
      allow_zero ? ">= 0" : "> 0");
}

}  // namespace

CLI::Validator Positive() { return NumberCheck(false, "be positive"); }

CLI::Validator NonNegative() { return NumberCheck(true, "not be negative"); }

}  // namespace tessera
