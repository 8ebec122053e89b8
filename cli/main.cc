// tessera: the command-line entry point. Each subcommand adds itself (cli/commands.h); errors
// become exit statuses here and only here (common/command_line.h).
#include <iostream>

#include "cli/commands.h"
#include "common/command_line.h"
#include "deploy/artifact.h"
#include "records/tuning_log.h"

int main(int argc, char** argv) {
  CLI::App app{"Tessera: an auto-tuning tensor compiler with a distributed device fleet.",
               "tessera"};
  tessera::AddVersionFlag(app, "writes artifact format " +
                                   std::to_string(tessera::deploy::kFixedShapeFormatVersion) +
                                   ", " + std::to_string(tessera::deploy::kArtifactFormatVersion) +
                                   " with batch buckets, tuning log schema " +
                                   std::to_string(tessera::records::kTuningLogSchemaVersion));
  app.require_subcommand(1);
  tessera::cli::AddTuneCommand(app);
  tessera::cli::AddTasksCommand(app);
  tessera::cli::AddLogCommand(app);
  tessera::cli::AddFleetCommand(app);
  tessera::cli::AddCompileCommand(app);
  tessera::cli::AddRunCommand(app);
  tessera::cli::AddJobCommand(app);
  tessera::cli::AddWorkerCommand(app);
  return tessera::RunCommandLine(app, argc, argv, std::cout, std::cerr);
}
