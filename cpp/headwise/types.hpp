// Shared matrix types. Row-major float64 everywhere, like NumPy and like the JS side.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace headwise {

using Index = Eigen::Index;
// (rows, cols), row-major, float64.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// (n), float64.
using Vector = Eigen::Matrix<double, Eigen::Dynamic, 1>;
// (rows, cols) of bool, row-major; true means "not allowed" (PyTorch's meaning).
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// (n) of bool; true means "not allowed".
using BoolVector = Eigen::Matrix<bool, Eigen::Dynamic, 1>;
// (rows, cols) of 64-bit integers, row-major (token ids, targets; -1 marks "no target").
using IntMatrix = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
// A (rows, cols) matrix in someone else's memory (a tensor of the trainer's parameter buffer).
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;
// What a function reading (or writing) a matrix takes: a Matrix or a MatrixMap alike.
using MatrixRef = Eigen::Ref<Matrix>;
using ConstMatrixRef = Eigen::Ref<const Matrix>;

}  // namespace headwise
