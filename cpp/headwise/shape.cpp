#include "headwise/shape.hpp"

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <stdexcept>

namespace headwise {

namespace {

std::string value_string(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

}  // namespace

std::string number_string(double x) {
  if (!std::isfinite(x)) return value_string(x);
  // Shortest %g form that reads back as the same double (snprintf, not iostreams: streams
  // would pull C++ locales into the WASM module, a third of its size).
  char buffer[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  return buffer;
}

std::string shape_string(Index rows, Index cols) {
  return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

void require_shape(const Matrix& m, Index rows, Index cols, const std::string& name) {
  require_shape_of(m.rows(), m.cols(), rows, cols, name);
}

void require_shape_of(Index actual_rows, Index actual_cols, Index rows, Index cols,
                      const std::string& name) {
  if (actual_rows != rows || actual_cols != cols) {
    throw std::invalid_argument(name + " has shape " + shape_string(actual_rows, actual_cols) +
                                " but must be " + shape_string(rows, cols));
  }
}

void require_length(const Vector& v, Index n, const std::string& name) {
  if (v.size() != n) {
    throw std::invalid_argument(name + " has length " + std::to_string(v.size()) +
                                " but must have length " + std::to_string(n));
  }
}

void require_nonempty(const Matrix& m, const std::string& name) {
  if (m.rows() == 0 || m.cols() == 0) {
    throw std::invalid_argument(name + " has shape " + shape_string(m.rows(), m.cols()) +
                                "; it must have at least one row and one column");
  }
}

void require_finite(const Matrix& m, const std::string& name) {
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        throw std::invalid_argument(name + " contains a non-finite value (" +
                                    value_string(m(i, j)) + ") at [" + std::to_string(i) +
                                    ", " + std::to_string(j) + "]; all values must be finite");
      }
}

void require_finite(const Vector& v, const std::string& name) {
  for (Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) {
      throw std::invalid_argument(name + " contains a non-finite value (" + value_string(v[i]) +
                                  ") at [" + std::to_string(i) + "]; all values must be finite");
    }
}

void require_positive(long long value, const std::string& name) {
  if (value < 1) {
    throw std::invalid_argument(name + " (" + std::to_string(value) +
                                ") must be a positive integer");
  }
}

}  // namespace headwise
