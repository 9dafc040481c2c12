// The test helpers themselves: fixture decoding and near_report's diagnostics.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "fixtures.hpp"

using Catch::Matchers::Contains;
using headwise::Matrix;
using headwise::test::fixture_cases;
using headwise::test::Json;
using headwise::test::load_fixture;
using headwise::test::near_report;
using headwise::test::NearReport;
using headwise::test::shape_of;
using headwise::test::to_double;
using headwise::test::to_matrix;
using headwise::test::to_vector;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_CASE("fixtures: non-finite numbers are decoded from strings", "[fixtures]") {
  CHECK(std::isnan(to_double(Json("NaN"))));
  CHECK(to_double(Json("Infinity")) == kInf);
  CHECK(to_double(Json("-Infinity")) == -kInf);
  CHECK(to_double(Json(0.1)) == 0.1);
  CHECK(to_double(Json(3)) == 3.0);
  CHECK_THROWS(to_double(Json("nan")));
  CHECK_THROWS(to_double(Json(nullptr)));
}

TEST_CASE("fixtures: nested arrays become row-major matrices and flat vectors", "[fixtures]") {
  const Json j = Json::parse(R"([[1, 2, 3], [4, "-Infinity", 6]])");
  const Matrix m = to_matrix(j);
  REQUIRE(m.rows() == 2);
  REQUIRE(m.cols() == 3);
  CHECK(m(0, 2) == 3.0);
  CHECK(m(1, 1) == -kInf);
  CHECK(shape_of(j) == std::vector<std::int64_t>{2, 3});
  const headwise::Vector v = to_vector(Json::parse("[[[1, 2, 3]]]"));  // (1, 1, 3) -> (3)
  REQUIRE(v.size() == 3);
  CHECK(v[2] == 3.0);
  CHECK_THROWS(to_matrix(Json::parse("[[1, 2], [3]]")));
}

TEST_CASE("fixtures: every file was made by NumPy 1.24 and PyTorch 1.13 in float64", "[fixtures]") {
  for (const char* name :
       {"numpy_random.json", "seed_experiments.json", "torch_mha.json", "parameter_tables.json"}) {
    CAPTURE(name);
    const Json& generator = load_fixture(name).at("generator");
    CHECK_THAT(generator.at("numpy").get<std::string>(), Catch::Matchers::StartsWith("1.24"));
    CHECK_THAT(generator.at("torch").get<std::string>(), Catch::Matchers::StartsWith("1.13"));
    CHECK(generator.at("dtype") == "float64");
    CHECK_FALSE(fixture_cases(name).empty());
  }
}

TEST_CASE("near_report names the first differing element and the max difference", "[fixtures]") {
  Matrix expected(2, 3);
  expected << 1, 2, 3, 4, 5, 6;
  Matrix actual = expected;
  CHECK(near_report(actual, expected, 0.0, "m").ok);
  actual(0, 2) = 3.5;
  actual(1, 1) = 7.0;
  const NearReport r = near_report(actual, expected, 0.1, "m");
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.message, Contains("m: 2 of 6 elements differ"));
  CHECK_THAT(r.message, Contains("first at (0, 2): actual 3.5, expected 3"));
  CHECK_THAT(r.message, Contains("max |actual - expected| 2"));
  CHECK(near_report(actual, expected, 2.0, "m").ok);
}

TEST_CASE("near_report: NaN must match NaN position by position, and shapes must match",
          "[fixtures]") {
  Matrix a(1, 3), b(1, 3);
  a << 1, kNaN, kInf;
  b << 1, kNaN, kInf;
  CHECK(near_report(a, b, 0.0, "nan").ok);
  b(0, 1) = 0.0;
  const NearReport r = near_report(a, b, 1e-12, "nan");
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.message, Contains("first at (0, 1): actual nan, expected 0"));
  b(0, 1) = kNaN;
  b(0, 2) = 1e308;
  CHECK_FALSE(near_report(a, b, 1e308, "inf").ok);  // inf is near only to inf
  const NearReport shape = near_report(Matrix::Zero(2, 2), Matrix::Zero(2, 3), 0.0, "s");
  CHECK_FALSE(shape.ok);
  CHECK(shape.message == "s: shape (2, 2) but expected (2, 3)");
}
