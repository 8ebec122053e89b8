// tessera: the command-line entry point. Subcommands register themselves (see command.h).
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "proto/grant.h"
#include "rpc_server/client/fleet_error.h"

namespace {

void PrintUsage(std::ostream& out) {
  out << "usage: tessera COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& [name, command] : tessera::cli::Commands()) {
    out << "  " << name << "  " << command.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help") {
    PrintUsage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  auto& commands = tessera::cli::Commands();
  auto it = commands.find(args[0]);
  if (it == commands.end()) {
    std::cerr << "error: unknown command '" << args[0] << "'\n";
    PrintUsage(std::cerr);
    return 2;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
      std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
    // Every subcommand answers missing arguments with its usage text: show that.
    try {
      it->second.run({}, std::cout);
    } catch (const tessera::fleet::ConfigError& e) {
      std::cout << e.what() << std::endl;
    }
    return 0;
  }
  try {
    return it->second.run(rest, std::cout);
  } catch (const tessera::fleet::ConfigError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 2;
  } catch (const tessera::fleet::FleetError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << std::endl;
    return 1;
  }
}
