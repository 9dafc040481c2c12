// number_string (the numbers in error messages) against what printf and strtod make of them:
// the shortest "%.*g" that strtod reads back as the same double. The module computes it by hand
// (printf's floating-point code would be a tenth of the WASM binary), so this reference is the
// C library's own, natively.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "headwise/shape.hpp"

namespace {

std::string reference(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  return buffer;
}

double from_bits(std::uint64_t bits) {
  double x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

}  // namespace

TEST_CASE("number_string: edge values print as printf's shortest %g", "[format]") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {
      0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, -0.30000000000000004, 1.0000000000000002,
      0.5, 1.5, 2.5, 0.125, 1e-4, 1e-5, 9.9999e-5, 0.0001234, 123456.0, 1234567.0,
      1e16, 1e17, 1e21, 1e22, 1e23, 9007199254740993.0, 9007199254740992.0, 1e100, 1e-100,
      1e308, 1.7976931348623157e308, 2.2250738585072014e-308, 2.2250738585072009e-308,
      4.9406564584124654e-324, 9.8813129168249309e-324, 5e-324, 1e-323, 123e-320,
      3.14159, 2.718281828459045, 6.02214076e23, 1.602176634e-19, 299792458.0,
      65536.0, 1e15, 999999999999999.9, 9.5, 99.5, 0.95, 1e-5 * 3, 7.0e-10,
      std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), std::nextafter(1e23, 0.0),
      std::nextafter(1e23, inf), std::nextafter(0.0, 1.0), std::nextafter(inf, 0.0),
      std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<double>::epsilon(), inf, -inf, std::nan("")};
  for (int e = -1074; e <= 1023; ++e) {
    values.push_back(std::ldexp(1.0, e));
    values.push_back(std::nextafter(std::ldexp(1.0, e), 0.0));
    values.push_back(std::nextafter(std::ldexp(1.0, e), inf));
  }
  for (int e = -325; e <= 308; ++e) {
    const double p = std::strtod(("1e" + std::to_string(e)).c_str(), nullptr);
    values.push_back(p);
    values.push_back(std::nextafter(p, 0.0));
    values.push_back(std::nextafter(p, inf));
  }
  for (double x : values) {
    INFO("x = " << reference(x));
    CHECK(headwise::number_string(x) == reference(x));
    CHECK(headwise::number_string(-x) == reference(-x));
  }
}

TEST_CASE("number_string: random doubles print as printf's shortest %g", "[format]") {
  std::mt19937_64 rng(20261201);
  std::uniform_int_distribution<int> length(1, 17);
  std::uniform_int_distribution<int> exponent(-330, 310);
  int checked = 0;
  for (int i = 0; i < 100000; ++i) {
    // Any bit pattern (NaN and infinity included) ...
    const double any = from_bits(rng());
    // ... and short decimals, which print with few digits and round on exact ties.
    std::string text = std::to_string(rng() % 100000000000000000ull).substr(0, static_cast<std::size_t>(length(rng)));
    text += "e" + std::to_string(exponent(rng));
    const double decimal = std::strtod(text.c_str(), nullptr);
    for (double x : {any, decimal}) {
      const std::string expected = reference(x);
      if (headwise::number_string(x) != expected) {
        FAIL_CHECK("bits " << std::hex << [&] { std::uint64_t b; std::memcpy(&b, &x, 8); return b; }()
                           << ": " << headwise::number_string(x) << " but printf gives " << expected);
      }
      ++checked;
    }
  }
  CHECK(checked == 200000);
}
