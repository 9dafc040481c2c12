// Golden fixtures (tests/fixtures/*.json, made by tests/fixtures/make_fixtures.py) as Eigen
// values, plus expect_near: element-wise comparison that names the first differing element.
//
// The fixture directory is the compile definition HEADWISE_FIXTURE_DIR (a string literal);
// the environment variable of the same name overrides it at run time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "headwise/trainer.hpp"
#include "headwise/types.hpp"

namespace headwise::test {

using Json = nlohmann::json;

// Full path of a fixture file, e.g. fixture_path("torch_mha.json").
std::string fixture_path(const std::string& name);

// A file's bytes (a weights file, an address). Throws std::runtime_error if it cannot be read.
std::string read_bytes(const std::string& path);

// The parsed file, loaded once per process. Throws std::runtime_error if it cannot be read.
const Json& load_fixture(const std::string& name);

// The "cases" array of a fixture file.
const Json& fixture_cases(const std::string& name);

// A JSON number, or one of the strings "NaN", "Infinity", "-Infinity".
double to_double(const Json& j);

// Every number of an arbitrarily nested array, in row-major order.
std::vector<double> flatten(const Json& j);

// [[...], ...] (rows, cols) -> Matrix. An empty array gives a (0, 0) matrix.
Matrix to_matrix(const Json& j);

// [...] (n) -> Vector; nested arrays are flattened (bias_k is stored as (1, 1, E)).
Vector to_vector(const Json& j);

// [[[...]]] (count, rows, cols) -> count matrices (rows, cols).
std::vector<Matrix> to_matrices(const Json& j);

// A trainer's config as the training fixtures write it ({task | relations, layers?, numHeads,
// dModel, seed, seqLen, vocab, batchSize, evalSize, learningRate?}) -> its options.
TrainerOptions to_trainer_options(const Json& c);

// A model's tensors by the names of the config's table (PyTorch's named_parameters()).
ModelParams to_params(const TrainerConfig& c, const Json& j);

// [[bool...]...] (rows, cols) -> BoolMatrix.
BoolMatrix to_bool_matrix(const Json& j);

// [bool...] (n) -> BoolVector.
BoolVector to_bool_vector(const Json& j);

// Shape of a nested array: [[1,2,3],[4,5,6]] -> {2, 3}.
std::vector<std::int64_t> shape_of(const Json& j);

// ---------------------------------------------------------------------------------------------
// Element-wise comparison in the style of libigl's assert_near.

struct NearReport {
  bool ok = true;
  std::string message;  // empty when ok
};

// Compares actual and expected element by element: |actual - expected| <= tol, and NaN only
// where the other side has NaN too (same for +-inf, which must match exactly). tol == 0 means
// exact equality. On mismatch the message names `what`, the shapes, the FIRST differing element
// (row, col) with both values at full precision, how many elements differ and the max |diff|.
NearReport near_report(const Matrix& actual, const Matrix& expected, double tol,
                       const std::string& what);

// Reports through Catch (FAIL_CHECK with near_report's message); returns whether it matched.
bool expect_near(const Matrix& actual, const Matrix& expected, double tol, const std::string& what);
bool expect_near(const Vector& actual, const Vector& expected, double tol, const std::string& what);
// Per-head lists: counts must match, then each matrix is compared ("what[h]").
bool expect_near(const std::vector<Matrix>& actual, const std::vector<Matrix>& expected, double tol,
                 const std::string& what);
// Scalars (NaN matches NaN).
bool expect_near(double actual, double expected, double tol, const std::string& what);

// Exact equality (tol 0), for values that must agree bit for bit.
template <typename T>
bool expect_equal(const T& actual, const T& expected, const std::string& what) {
  return expect_near(actual, expected, 0.0, what);
}

// The GEMM kernel's documented summation order, computed plainly:
// c[i][j] = (s_0 + s_1) + s_2 + ..., where s_b sums a[i][k] * b[k][j] over the b-th block of kKc
// consecutive k, in increasing k, each product rounded before it is added (no fused
// multiply-add). a: (m, k), b: (k, n) -> (m, n).
Matrix reference_product(const Matrix& a, const Matrix& b);

// The message of the std::invalid_argument call() throws, or "no error".
template <typename F>
std::string message_of(F&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// A test that cannot run here (a file it reads is not installed) says why and stops. Under
// ctest (which sets HEADWISE_SKIP_RETURN_CODE on every test it discovers, and runs each test in
// a process of its own) the process exits with that code, which ctest reports as skipped; run by
// hand, the test passes with the reason printed as a warning, and the other tests go on.
// Returns normally only in that second case: `if (!ready) { skip_test("..."); return; }`.
void skip_test(const std::string& reason);

}  // namespace headwise::test
