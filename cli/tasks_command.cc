// `tessera tasks`: the templates a newcomer can tune, with the format of their workload keys.
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "common/json.h"
#include "compiler/task/task.h"

namespace tessera {
namespace cli {

void AddTasksCommand(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* tasks = app.add_subcommand(
      "tasks", "List the templates that can be tuned, with their workload-key formats.");
  tasks->add_flag("--json", *json, "one JSON object per template");
  tasks->callback([json] {
    size_t width = 0;  // names in a column of their own, whatever their length
    for (const task::TemplateDef& def : task::Templates()) width = std::max(width, def.name.size());
    for (const task::TemplateDef& def : task::Templates()) {
      if (*json) {
        PrintJsonLine(Json{{"template", def.name}, {"workload_key", def.name + def.args_help}},
                      std::cout);
      } else {
        std::cout << std::left << std::setw(static_cast<int>(width + 2)) << def.name << def.name
                  << def.args_help << "\n";
      }
    }
  });
}

}  // namespace cli
}  // namespace tessera
