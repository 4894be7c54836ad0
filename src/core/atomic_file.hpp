// Writing a file so that a reader never sees half of it: the text goes to
// PATH.tmp, flushed to disk, which is renamed over PATH only when complete.
// The one writer every output file of hplx goes through (JSON records,
// traces, reports, machine specs).
#pragma once

#include <string>

namespace hplx {

// Writes `text` to path + ".tmp", fsyncs it and renames it over `path`.
// Throws SystemError naming the path and the failed step (after removing
// the temporary file).
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace hplx
