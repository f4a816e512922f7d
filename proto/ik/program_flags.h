// The command line of ikd and ikctl: absl::ParseCommandLine, except that
// help asked for (--help, --helpfull, --helpshort, --help=SUBSTRING) is
// printed to stdout and exits 0, as a program's help does; Abseil's own
// handling exits 1. Not installed.
#ifndef IK_PROTO_IK_PROGRAM_FLAGS_H_
#define IK_PROTO_IK_PROGRAM_FLAGS_H_

#include <vector>

namespace ik {

// Parses the flags of argv (an undefined one ends the program, as
// absl::ParseCommandLine does); returns the program name and the positional
// arguments.
std::vector<char*> ParseFlagsHelpingWithSuccess(int argc, char** argv);

}  // namespace ik

#endif  // IK_PROTO_IK_PROGRAM_FLAGS_H_
