// Internal helpers for argument checks shared by the core's files. Every check throws a
// headwise::Error (error.hpp): a message that says what was given and what is allowed, and its
// code ("shape", "length", "empty", "finite", "positive", "atMost", "range"), the field (the API's
// name for `name`: "d_model" -> "dModel") and the parameters the message quotes.
#pragma once

#include <string>

#include "headwise/error.hpp"
#include "headwise/types.hpp"

namespace headwise {

// "(rows, cols)".
std::string shape_string(Index rows, Index cols);
// A double as NumPy's repr would show it: "-1", "-1e-09", "0.5", "nan", "inf".
std::string number_string(double x);

// Throws unless m is (rows, cols): "wq has shape (3, 8) but must be (8, 8)".
void require_shape(const Matrix& m, Index rows, Index cols, const std::string& name);
// The same for a matrix of any element type (e.g. a boolean mask), and for bare dimensions.
void require_shape_of(Index actual_rows, Index actual_cols, Index rows, Index cols,
                      const std::string& name);
template <typename Derived>
void require_shape(const Eigen::DenseBase<Derived>& m, Index rows, Index cols,
                   const std::string& name) {
  require_shape_of(m.rows(), m.cols(), rows, cols, name);
}
void require_length(const Vector& v, Index n, const std::string& name);
// Throws if m has no rows or no columns.
void require_nonempty(const Matrix& m, const std::string& name);
// Throws on NaN or +-inf: "x contains a non-finite value (nan) at [2, 3]; all values must be finite".
void require_finite(const Matrix& m, const std::string& name);
void require_finite(const Vector& v, const std::string& name);
// Throws unless value >= 1: "num_heads (0) must be a positive integer".
void require_positive(long long value, const std::string& name);
// "name (value) must be at most hi" unless value <= hi.
void require_at_most(std::int64_t value, std::int64_t hi, const std::string& name);
// "name (value) must be between lo and hi" unless lo <= value <= hi. field: the API's option when
// it is not api_field(name) (e.g. "tokens" for "tokens count of sequences").
void require_range(std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& name,
                   const std::string& field = "");

}  // namespace headwise
