/// \file
/// The subcommands of the `tessera` command. Each lives in its own file and adds itself to the
/// app with its flags and action; `cli/main.cc` calls every `Add…Command` and owns the error
/// policy (`RunCommandLine`): actions throw (`UserError` → exit 2, `ExternalError` → 1, anything
/// else → 70) and never translate errors themselves; an action that ends with a status of its
/// own throws `CLI::RuntimeError(status)`.
#ifndef TESSERA_CLI_COMMANDS_H_
#define TESSERA_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace tessera {
namespace cli {

/// `tessera tune`: tunes one task and records every measurement in the tuning log.
void AddTuneCommand(CLI::App& app);

/// `tessera tasks`: the templates that can be tuned, with their workload-key formats.
void AddTasksCommand(CLI::App& app);

/// `tessera log best|list|stats|export|import`: queries and moves tuning logs.
void AddLogCommand(CLI::App& app);

/// `tessera fleet status`: what the device fleet is doing.
void AddFleetCommand(CLI::App& app);

/// `tessera compile`: an ONNX model into a compiled model directory.
void AddCompileCommand(CLI::App& app);

/// `tessera job submit|list|status|watch|cancel`: tuning jobs on the tracker.
void AddJobCommand(CLI::App& app);

/// `tessera worker`: tunes batches of the tracker's jobs on fleet devices.
void AddWorkerCommand(CLI::App& app);

/// `tessera run`: runs a compiled model directory with the runtime.
void AddRunCommand(CLI::App& app);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_CLI_COMMANDS_H_
