// Reading a file the user named: an HPL.dat, a system spec, a run record, a
// simulation model. The one reader every such input goes through, so that a
// folder given where a file is expected, or a file the process cannot read,
// is refused the same way everywhere, before anything else looks at the
// text (an ifstream opens a folder without complaint and reads nothing,
// which a parser then reports as an empty file).
#pragma once

#include <string>
#include <string_view>

namespace hplx {

// The whole of `path`. Throws UsageError (exit 2), one line naming the path:
//   "PATH: is a folder; allowed: ALLOWED"
//   "PATH: cannot read: REASON; allowed: ALLOWED" (REASON: strerror, e.g.
//   "No such file or directory", "Permission denied", "Not a directory").
// `allowed` says what the command expects there ("an HPL.dat in netlib's
// 31-line format, e.g. examples/HPL.dat").
std::string read_input_file(const std::string& path, std::string_view allowed);

}  // namespace hplx
