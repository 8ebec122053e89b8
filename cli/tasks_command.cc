// `tessera tasks`: the templates a newcomer can tune, with the format of their workload keys.
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "common/json.h"
#include "tuner/task/task.h"

namespace tessera {
namespace cli {

void AddTasksCommand(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* tasks = app.add_subcommand(
      "tasks", "List the templates that can be tuned, with their workload-key formats.");
  tasks->add_flag("--json", *json, "one JSON object per template");
  tasks->callback([json] {
    for (const tuner::TemplateDef& def : tuner::Templates()) {
      if (*json) {
        PrintJsonLine(Json{{"template", def.name}, {"workload_key", def.name + def.args_help}},
                      std::cout);
      } else {
        std::cout << std::left << std::setw(24) << def.name << def.name << def.args_help << "\n";
      }
    }
  });
}

}  // namespace cli
}  // namespace tessera
