#include "root_check.hpp"

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"

namespace hplx::app {

void broadcast_string(std::string& text, MPI_Comm world) {
  long len = static_cast<long>(text.size());
  MPI_Bcast(&len, 1, MPI_LONG, 0, world);
  text.resize(static_cast<std::size_t>(len));
  MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, 0, world);
}

void check_on_root(MPI_Comm world, const std::function<void()>& check) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  std::string error;
  if (rank == 0) {
    try {
      check();
    } catch (const UsageError& e) {
      error = e.what();
    }
  }
  broadcast_string(error, world);
  if (!error.empty()) throw UsageError(error);
}

void require_outputs_on_root(MPI_Comm world,
                             std::initializer_list<std::pair<std::string, std::string>> outputs) {
  check_on_root(world, [&] {
    for (const auto& [option, path] : outputs)
      if (!path.empty()) require_writable(option, path);
  });
}

std::string read_hpl_dat_on_root(const std::string& path, MPI_Comm world) {
  std::string text;
  check_on_root(world, [&] {
    text = read_input_file(path, "an HPL.dat in netlib's 31-line format, e.g. examples/HPL.dat");
  });
  broadcast_string(text, world);
  return text;
}

}  // namespace hplx::app
