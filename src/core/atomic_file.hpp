// Writing a file so that a reader never sees half of it: the text goes to
// PATH.tmp, flushed to disk, which is renamed over PATH only when complete.
// The one writer every output file of hplx goes through (JSON records,
// traces, reports, machine specs).
#pragma once

#include <string>

namespace hplx {

// Writes `text` to path + tmp_suffix, fsyncs it and renames it over `path`.
// Throws SystemError naming the path and the failed step (after removing
// the temporary file). Writers that may race for one path give each their
// own suffix.
void write_text_atomically(const std::string& path, const std::string& text,
                           const std::string& tmp_suffix = ".tmp");

// Checks, before any work starts, that `path` can be written the way
// write_text_atomically (or a plain fopen "w") will write it: its folder
// exists and takes a new file, and the path is not a folder. Throws
// UsageError "OPTION PATH: cannot write there: REASON" (exit 2), so that a
// long run does not lose its record at the end. Creates nothing that stays.
void require_writable(const std::string& option, const std::string& path);

}  // namespace hplx
