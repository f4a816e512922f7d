#include "ik/program_flags.h"

#include <cstdlib>
#include <iostream>
#include <vector>

#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/usage.h"

namespace ik {

std::vector<char*> ParseFlagsHelpingWithSuccess(int argc, char** argv) {
  std::vector<char*> positional = absl::flags_internal::ParseCommandLineImpl(
      argc, argv, absl::flags_internal::ArgvListAction::kRemoveParsedArgs,
      absl::flags_internal::UsageFlagsAction::kIgnoreUsage,
      absl::flags_internal::OnUndefinedFlag::kAbortIfUndefined);
  const int usage = absl::flags_internal::HandleUsageFlags(
      std::cout, absl::ProgramUsageMessage());
  if (usage != -1) std::exit(usage == 1 ? 0 : usage);
  return positional;
}

}  // namespace ik
