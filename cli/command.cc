#include "cli/command.h"

namespace tessera {
namespace cli {

std::map<std::string, Command>& Commands() {
  static auto* commands = new std::map<std::string, Command>();
  return *commands;
}

CommandRegistrar::CommandRegistrar(Command command) {
  std::string name = command.name;
  Commands()[name] = std::move(command);
}

}  // namespace cli
}  // namespace tessera
