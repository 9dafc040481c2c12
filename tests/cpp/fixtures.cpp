#include "fixtures.hpp"
#include "headwise/gemm.hpp"

#include <algorithm>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#ifndef HEADWISE_FIXTURE_DIR
#define HEADWISE_FIXTURE_DIR "tests/fixtures"
#endif

namespace headwise::test {

std::string fixture_path(const std::string& name) {
  const char* env = std::getenv("HEADWISE_FIXTURE_DIR");
  const std::string dir = (env != nullptr && *env != '\0') ? env : HEADWISE_FIXTURE_DIR;
  return dir + "/" + name;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const Json& load_fixture(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Json> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const std::string path = fixture_path(name);
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot open fixture " + path +
                             " (run /usr/bin/python3 tests/fixtures/make_fixtures.py)");
  }
  Json parsed = Json::parse(in);
  return cache.emplace(name, std::move(parsed)).first->second;
}

const Json& fixture_cases(const std::string& name) { return load_fixture(name).at("cases"); }

double to_double(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  throw std::runtime_error("fixture value is not a number: " + j.dump());
}

namespace {

void flatten_into(const Json& j, std::vector<double>& out) {
  if (j.is_array()) {
    for (const Json& e : j) flatten_into(e, out);
  } else {
    out.push_back(to_double(j));
  }
}

}  // namespace

std::vector<double> flatten(const Json& j) {
  std::vector<double> out;
  flatten_into(j, out);
  return out;
}

std::vector<std::int64_t> shape_of(const Json& j) {
  std::vector<std::int64_t> shape;
  const Json* cur = &j;
  while (cur->is_array()) {
    shape.push_back(static_cast<std::int64_t>(cur->size()));
    if (cur->empty()) break;
    cur = &(*cur)[0];
  }
  return shape;
}

Matrix to_matrix(const Json& j) {
  // j: (rows, cols)
  if (!j.is_array()) throw std::runtime_error("fixture matrix is not an array: " + j.dump());
  const Index rows = static_cast<Index>(j.size());
  if (rows == 0) return Matrix(0, 0);
  const Index cols = static_cast<Index>(j[0].size());
  Matrix m(rows, cols);
  for (Index i = 0; i < rows; ++i) {
    const Json& row = j[static_cast<std::size_t>(i)];
    if (!row.is_array() || static_cast<Index>(row.size()) != cols) {
      throw std::runtime_error("fixture matrix is ragged at row " + std::to_string(i));
    }
    for (Index c = 0; c < cols; ++c) m(i, c) = to_double(row[static_cast<std::size_t>(c)]);
  }
  return m;
}

Vector to_vector(const Json& j) {
  const std::vector<double> flat = flatten(j);
  Vector v(static_cast<Index>(flat.size()));
  for (std::size_t i = 0; i < flat.size(); ++i) v[static_cast<Index>(i)] = flat[i];
  return v;
}

std::vector<Matrix> to_matrices(const Json& j) {
  // j: (count, rows, cols)
  std::vector<Matrix> out;
  for (const Json& m : j) out.push_back(to_matrix(m));
  return out;
}

TrainerOptions to_trainer_options(const Json& c) {
  TrainerOptions o;
  if (c.contains("task")) o.task = c.at("task").get<std::string>();
  if (c.contains("relations")) o.relations = c.at("relations").get<std::vector<std::string>>();
  if (c.contains("layers")) o.layers = c.at("layers").get<std::int64_t>();
  o.num_heads = c.at("numHeads").get<std::int64_t>();
  o.d_model = c.at("dModel").get<std::int64_t>();
  o.seed = c.at("seed").get<std::int64_t>();
  o.seq_len = c.at("seqLen").get<std::int64_t>();
  o.vocab = c.at("vocab").get<std::int64_t>();
  o.batch_size = c.at("batchSize").get<std::int64_t>();
  o.eval_size = c.at("evalSize").get<std::int64_t>();
  if (c.contains("learningRate")) o.learning_rate = c.at("learningRate").get<double>();
  return o;
}

ModelParams to_params(const TrainerConfig& c, const Json& j) {
  std::vector<Matrix> tensors;
  for (const ParamTensor& t : param_table(c)) {
    if (t.is_vector) tensors.emplace_back(to_vector(j.at(t.name)));
    else tensors.push_back(to_matrix(j.at(t.name)));
  }
  return params_from(c, tensors);
}

BoolMatrix to_bool_matrix(const Json& j) {
  const Index rows = static_cast<Index>(j.size());
  const Index cols = rows == 0 ? 0 : static_cast<Index>(j[0].size());
  BoolMatrix m(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index c = 0; c < cols; ++c)
      m(i, c) = j[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)].get<bool>();
  return m;
}

BoolVector to_bool_vector(const Json& j) {
  BoolVector v(static_cast<Index>(j.size()));
  for (std::size_t i = 0; i < j.size(); ++i) v[static_cast<Index>(i)] = j[i].get<bool>();
  return v;
}

// ---------------------------------------------------------------------------------------------

namespace {

std::string format_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// True when a and b agree: both NaN, equal (covers equal infinities), or finite and within tol.
bool element_near(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  return std::abs(a - b) <= tol;
}

std::string index_string(Index i, Index j, bool vector) {
  if (vector) return "[" + std::to_string(i) + "]";
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
}

NearReport compare(const Matrix& actual, const Matrix& expected, double tol,
                   const std::string& what, bool vector) {
  NearReport r;
  std::ostringstream msg;
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    r.ok = false;
    msg << what << ": shape (" << actual.rows() << ", " << actual.cols() << ") but expected ("
        << expected.rows() << ", " << expected.cols() << ")";
    r.message = msg.str();
    return r;
  }
  Index first_i = -1, first_j = -1, count = 0;
  double max_diff = 0.0;
  bool max_is_nan = false;
  for (Index i = 0; i < actual.rows(); ++i) {
    for (Index j = 0; j < actual.cols(); ++j) {
      const double a = actual(i, j);
      const double b = expected(i, j);
      if (!(std::isnan(a) && std::isnan(b)) && !(a == b)) {
        const double d = std::abs(a - b);
        if (std::isnan(d)) {
          max_is_nan = true;
        } else if (d > max_diff) {
          max_diff = d;
        }
      }
      if (!element_near(a, b, tol)) {
        if (count == 0) {
          first_i = i;
          first_j = j;
        }
        ++count;
      }
    }
  }
  if (count == 0) return r;
  r.ok = false;
  char tol_text[32];
  std::snprintf(tol_text, sizeof tol_text, "%g", tol);
  msg << what << ": " << count << " of " << actual.size() << " elements differ by more than "
      << tol_text << "; first at " << index_string(first_i, first_j, vector) << ": actual "
      << format_double(actual(first_i, first_j)) << ", expected "
      << format_double(expected(first_i, first_j)) << "; max |actual - expected| "
      << (max_is_nan ? std::string("nan (NaN or inf positions differ), finite max ") : "")
      << format_double(max_diff);
  r.message = msg.str();
  return r;
}

bool report(const NearReport& r) {
  if (!r.ok) {
    FAIL_CHECK(r.message);
    return false;
  }
  SUCCEED();
  return true;
}

}  // namespace

NearReport near_report(const Matrix& actual, const Matrix& expected, double tol,
                       const std::string& what) {
  return compare(actual, expected, tol, what, false);
}

bool expect_near(const Matrix& actual, const Matrix& expected, double tol,
                 const std::string& what) {
  return report(compare(actual, expected, tol, what, false));
}

bool expect_near(const Vector& actual, const Vector& expected, double tol,
                 const std::string& what) {
  return report(compare(Matrix(actual), Matrix(expected), tol, what, true));
}

bool expect_near(const std::vector<Matrix>& actual, const std::vector<Matrix>& expected, double tol,
                 const std::string& what) {
  if (actual.size() != expected.size()) {
    FAIL_CHECK(what << ": " << actual.size() << " matrices but expected " << expected.size());
    return false;
  }
  bool ok = true;
  for (std::size_t h = 0; h < actual.size(); ++h) {
    ok = expect_near(actual[h], expected[h], tol, what + "[" + std::to_string(h) + "]") && ok;
  }
  return ok;
}

bool expect_near(double actual, double expected, double tol, const std::string& what) {
  Matrix a(1, 1), e(1, 1);
  a(0, 0) = actual;
  e(0, 0) = expected;
  NearReport r = compare(a, e, tol, what, true);
  return report(r);
}

Matrix reference_product(const Matrix& a, const Matrix& b) {
  Matrix c = Matrix::Zero(a.rows(), b.cols());
  for (Index i = 0; i < a.rows(); ++i) {
    for (Index j = 0; j < b.cols(); ++j) {
      double total = 0.0;
      for (Index k0 = 0; k0 < a.cols(); k0 += kKc) {
        volatile double block = 0.0;  // volatile: keep every rounding step
        for (Index k = k0; k < std::min(a.cols(), k0 + kKc); ++k) {
          volatile double product = a(i, k) * b(k, j);
          block = block + product;
        }
        total = k0 == 0 ? block : total + block;
      }
      c(i, j) = total;
    }
  }
  return c;
}

void skip_test(const std::string& reason) {
  const char* code = std::getenv("HEADWISE_SKIP_RETURN_CODE");
  if (code != nullptr && *code != '\0') {
    std::fprintf(stderr, "SKIPPED: %s\n", reason.c_str());
    std::fflush(stderr);
    std::exit(std::atoi(code));
  }
  WARN("SKIPPED: " << reason);
}

}  // namespace headwise::test
