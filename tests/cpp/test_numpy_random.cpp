// NumpyRandomState against np.random.seed / randn / random_sample (numpy_random.json), bit for bit.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

#include "fixtures.hpp"
#include "headwise/numpy_random.hpp"

using headwise::Index;
using headwise::Matrix;
using headwise::NumpyRandomState;
using headwise::Vector;
using headwise::test::expect_equal;
using headwise::test::fixture_cases;
using headwise::test::Json;
using headwise::test::to_vector;

namespace {

// One fixture call: shape [n] -> randn(n) (n), shape [r, c] -> randn(r, c) flattened row-major.
Vector draw(NumpyRandomState& rng, const Json& shape) {
  if (shape.size() == 1) return rng.randn(shape[0].get<Index>());
  const Matrix m = rng.randn(shape[0].get<Index>(), shape[1].get<Index>());
  return Eigen::Map<const Vector>(m.data(), m.size());
}

std::string call_label(std::int64_t seed, std::size_t i, const Json& shape) {
  return "seed " + std::to_string(seed) + " call " + std::to_string(i) + " randn" + shape.dump();
}

}  // namespace

TEST_CASE("randn reproduces numpy's draw sequence bit for bit, including the cached gaussian",
          "[numpy_random][fixture]") {
  const Json& cases = fixture_cases("numpy_random.json");
  REQUIRE(cases.size() >= 6);
  for (const Json& c : cases) {
    const std::int64_t seed = c.at("seed").get<std::int64_t>();
    DYNAMIC_SECTION("seed " << seed) {
      NumpyRandomState rng(seed);
      const Json& calls = c.at("calls");
      for (std::size_t i = 0; i < calls.size(); ++i) {
        const Json& shape = calls[i].at("shape");
        const Vector expected = to_vector(calls[i].at("values"));
        const Vector actual = draw(rng, shape);
        expect_equal(actual, expected, call_label(seed, i, shape));
      }
    }
  }
}

TEST_CASE("randn(rows, cols) fills the matrix row by row", "[numpy_random][fixture]") {
  const Json& c = fixture_cases("numpy_random.json").at(0);
  NumpyRandomState rng(c.at("seed").get<std::int64_t>());
  const Json& calls = c.at("calls");
  REQUIRE(calls[0].at("shape").size() == 1);
  rng.randn(calls[0].at("shape")[0].get<Index>());
  REQUIRE(calls[1].at("shape") == Json::array({2, 5}));
  const Matrix m = rng.randn(2, 5);  // (2, 5)
  const Vector flat = to_vector(calls[1].at("values"));
  REQUIRE(m.rows() == 2);
  REQUIRE(m.cols() == 5);
  for (Index i = 0; i < 2; ++i)
    for (Index j = 0; j < 5; ++j) CHECK(m(i, j) == flat[i * 5 + j]);
}

TEST_CASE("random_sample reproduces numpy's 53-bit doubles", "[numpy_random][fixture]") {
  int checked = 0;
  for (const Json& c : fixture_cases("numpy_random.json")) {
    if (!c.contains("random_sample")) continue;
    const std::int64_t seed = c.at("seed").get<std::int64_t>();
    NumpyRandomState rng(seed);
    const Vector expected = to_vector(c.at("random_sample").at("values"));
    Vector actual(expected.size());
    for (Index i = 0; i < actual.size(); ++i) actual[i] = rng.random_double();
    expect_equal(actual, expected, "random_sample seed " + std::to_string(seed));
    for (Index i = 0; i < actual.size(); ++i) {
      CHECK(actual[i] >= 0.0);
      CHECK(actual[i] < 1.0);
    }
    ++checked;
  }
  CHECK(checked >= 2);
}

TEST_CASE("seed 7 starts with the lesson's X[0, :3]", "[numpy_random]") {
  NumpyRandomState rng(7);
  const Vector v = rng.randn(3);
  CHECK(v[0] == Approx(1.6905257).margin(5e-8));
  CHECK(v[1] == Approx(-0.4659373).margin(5e-8));
  CHECK(v[2] == Approx(0.0328201).margin(5e-8));
}

TEST_CASE("seed() resets the generator and drops the cached gaussian", "[numpy_random]") {
  NumpyRandomState fresh(42);
  const Vector expected = fresh.randn(5);

  NumpyRandomState reused(1);
  reused.randn(3);  // odd count: one gaussian is now cached
  reused.seed(42);
  expect_equal(reused.randn(5), expected, "randn(5) after seed(42) on a used state");
}

TEST_CASE("one gauss() at a time equals one randn(n) call", "[numpy_random]") {
  NumpyRandomState a(123456789);
  NumpyRandomState b(123456789);
  const Vector batch = a.randn(9);
  Vector single(9);
  for (Index i = 0; i < 9; ++i) single[i] = b.gauss();
  expect_equal(single, batch, "gauss() x9 vs randn(9)");
}

TEST_CASE("empty randn draws nothing", "[numpy_random]") {
  NumpyRandomState a(0);
  NumpyRandomState b(0);
  CHECK(a.randn(0).size() == 0);
  const Matrix empty = a.randn(0, 4);
  CHECK(empty.rows() == 0);
  CHECK(empty.cols() == 4);
  CHECK(a.randn(3, 0).size() == 0);
  expect_equal(a.randn(4), b.randn(4), "randn(4) after empty draws");
}

TEST_CASE("next_uint32 is MT19937 seeded like init_genrand", "[numpy_random]") {
  // The C++ standard fixes the 10000th output of the default-seeded (5489) mt19937.
  NumpyRandomState rng(5489);
  std::uint32_t last = 0;
  for (int i = 0; i < 10000; ++i) last = rng.next_uint32();
  CHECK(last == 4123659995u);

  // Same stream as std::mt19937 for the extreme seeds.
  for (std::int64_t seed : {std::int64_t{0}, headwise::kMaxSeed}) {
    NumpyRandomState r(seed);
    std::mt19937 reference(static_cast<std::uint32_t>(seed));
    for (int i = 0; i < 5; ++i) CHECK(r.next_uint32() == reference());
  }
}

TEST_CASE("seeds outside [0, 2^32 - 1] are rejected", "[numpy_random][errors]") {
  CHECK_NOTHROW(NumpyRandomState(0));
  CHECK_NOTHROW(NumpyRandomState(headwise::kMaxSeed));
  CHECK(headwise::kMaxSeed == 4294967295LL);
  CHECK_THROWS_AS(NumpyRandomState(-1), std::invalid_argument);
  CHECK_THROWS_WITH(NumpyRandomState(-1), "seed (-1) must be an integer between 0 and 4294967295");
  CHECK_THROWS_AS(NumpyRandomState(4294967296LL), std::invalid_argument);
  CHECK_THROWS_WITH(NumpyRandomState(4294967296LL),
                    "seed (4294967296) must be an integer between 0 and 4294967295");
}

TEST_CASE("a rejected seed() leaves the generator's state untouched", "[numpy_random][errors]") {
  NumpyRandomState a(7);
  NumpyRandomState b(7);
  a.randn(1);
  b.randn(1);
  CHECK_THROWS_WITH(a.seed(-5), "seed (-5) must be an integer between 0 and 4294967295");
  expect_equal(a.randn(4), b.randn(4), "randn(4) after a rejected seed()");
}
