// Writing a file so that a reader never sees half of it: the text goes to
// PATH.tmp, which is renamed over PATH only when complete.
#pragma once

#include <string>

namespace hplx {

// Writes `text` to path + ".tmp", flushes it and renames it over `path`.
// Throws SystemError naming the path (after removing the temporary file).
void write_text_atomically(const std::string& path, const std::string& text);

}  // namespace hplx
