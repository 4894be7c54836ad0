#include <fmt/format.h>

#include "core/error.hpp"
#include "device/convert_kernel.hpp"
#include "device/launch.hpp"

namespace hplx::device {
namespace {

template <class T>
void convert_matrix(Queue& q, long m, long n, const float* a, long lda, T* b, long ldb) {
  if (m <= 0 || n <= 0) return;
  if (lda < m || ldb < m)
    throw Error(
        fmt::format("convert: leading dimensions {} and {} must be at least m = {}", lda, ldb, m));
  launch(q, m * n, RoundMatrix<T>{m, a, lda, b, ldb});
}

}  // namespace

void Queue::convert(long m, long n, const float* a, long lda, Half* b, long ldb) {
  convert_matrix(*this, m, n, a, lda, b, ldb);
}

void Queue::convert(long m, long n, const float* a, long lda, BFloat16* b, long ldb) {
  convert_matrix(*this, m, n, a, lda, b, ldb);
}

}  // namespace hplx::device
