#include "headwise/shape.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace headwise {

namespace {

std::string value_string(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

// A non-negative integer in base 2^32, least significant word first: just enough arithmetic to
// compare a double's exact value with decimal numbers.
class Big {
 public:
  explicit Big(std::uint64_t v) {
    for (; v != 0; v >>= 32) words_.push_back(static_cast<std::uint32_t>(v));
  }
  void mul_small(std::uint32_t f) {
    std::uint64_t carry = 0;
    for (std::uint32_t& w : words_) {
      const std::uint64_t t = static_cast<std::uint64_t>(w) * f + carry;
      w = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) words_.push_back(static_cast<std::uint32_t>(carry));
  }
  void mul_pow10(int n) {
    static const std::uint32_t kPow10[9] = {1,      10,      100,      1000,     10000,
                                            100000, 1000000, 10000000, 100000000};
    for (; n >= 9; n -= 9) mul_small(1000000000u);
    if (n > 0) mul_small(kPow10[n]);
  }
  void shl(int bits) {
    if (words_.empty()) return;
    const int r = bits % 32;
    if (r != 0) {
      std::uint32_t carry = 0;
      for (std::uint32_t& w : words_) {
        const std::uint32_t next = w >> (32 - r);
        w = (w << r) | carry;
        carry = next;
      }
      if (carry != 0) words_.push_back(carry);
    }
    words_.insert(words_.begin(), static_cast<std::size_t>(bits / 32), 0u);
  }
  // *this -= o, where o <= *this.
  void sub(const Big& o) {
    std::uint32_t borrow = 0;
    for (std::size_t i = 0; i < words_.size(); ++i) {
      const std::uint64_t take = static_cast<std::uint64_t>(i < o.words_.size() ? o.words_[i] : 0u) + borrow;
      borrow = words_[i] < take ? 1u : 0u;
      words_[i] = static_cast<std::uint32_t>(words_[i] - take);
    }
    while (!words_.empty() && words_.back() == 0) words_.pop_back();
  }
  friend int compare(const Big& a, const Big& b) {
    if (a.words_.size() != b.words_.size()) return a.words_.size() < b.words_.size() ? -1 : 1;
    for (std::size_t i = a.words_.size(); i-- > 0;) {
      if (a.words_[i] != b.words_[i]) return a.words_[i] < b.words_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  std::vector<std::uint32_t> words_;
};

// Compares a * 2^a2 * 10^a10 with b * 2^b2 * 10^b10, exactly.
int compare_scaled(std::uint64_t a, int a2, int a10, std::uint64_t b, int b2, int b10) {
  Big x(a);
  Big y(b);
  if (a2 >= b2) x.shl(a2 - b2); else y.shl(b2 - a2);
  if (a10 >= b10) x.mul_pow10(a10 - b10); else y.mul_pow10(b10 - a10);
  return compare(x, y);
}

// A finite double's exact value as m * 2^e (m < 2^53), from its bits; the bits of infinity give
// 2^1024, where rounding up from the largest double ends.
struct Binary {
  std::uint64_t m;
  int e;
};
Binary binary_of(std::uint64_t bits) {
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0) return {fraction, -1074};
  return {fraction | (std::uint64_t{1} << 52), biased - 1075};
}

// |x| (finite, not zero) rounded to `digits` significant decimal digits, half to even, as printf
// rounds: q * 10^(k - digits + 1) with 10^(digits-1) <= q < 10^digits, and k the exponent that
// %e would print.
struct Decimal {
  std::uint64_t q;
  int k;
};
Decimal round_to_digits(Binary v, int digits) {
  int bits = 0;
  for (std::uint64_t m = v.m; m != 0; m >>= 1) ++bits;
  // 10^k <= |x| < 10^(k+1): an estimate from the binary exponent (off by one at most), then
  // exact checks.
  int k = static_cast<int>(std::floor((v.e + bits - 1) * 0.30102999566398120));
  if (compare_scaled(v.m, v.e, 0, 1, 0, k) < 0) --k;
  if (compare_scaled(v.m, v.e, 0, 1, 0, k + 1) >= 0) ++k;
  const int t = k - digits + 1;
  // q = floor(|x| / 10^t), bit by bit; q < 10^17 < 2^57.
  Big num(v.m);
  Big den(1);
  if (v.e >= 0) num.shl(v.e); else den.shl(-v.e);
  if (t >= 0) den.mul_pow10(t); else num.mul_pow10(-t);
  std::uint64_t q = 0;
  for (int b = 57; b >= 0; --b) {
    Big step = den;
    step.shl(b);
    if (compare(num, step) >= 0) {
      num.sub(step);
      q |= std::uint64_t{1} << b;
    }
  }
  num.shl(1);  // twice the remainder, against the divisor
  const int half = compare(num, den);
  if (half > 0 || (half == 0 && (q & 1) != 0)) ++q;
  std::uint64_t limit = 1;
  for (int i = 0; i < digits; ++i) limit *= 10;
  if (q == limit) {
    q /= 10;
    ++k;
  }
  return {q, k};
}

// True if the decimal d (of `digits` digits) reads back as the double with these bits: it lies
// between the midpoints to the neighbouring doubles, or on one of them when the double's last
// bit is even (round half to even).
bool reads_back(std::uint64_t bits, Decimal d, int digits) {
  const Binary v = binary_of(bits);
  const Binary below = binary_of(bits - 1);
  const Binary above = binary_of(bits + 1);
  const int t = d.k - digits + 1;
  const bool even = (bits & 1) == 0;
  // A midpoint (a + b) / 2 as M * 2^(s - 1), with a and b one bit of exponent apart at most.
  const auto midpoint_compare = [&](Binary a, Binary b) {
    const int s = a.e < b.e ? a.e : b.e;
    const std::uint64_t m = (a.m << (a.e - s)) + (b.m << (b.e - s));
    return compare_scaled(d.q, 0, t, m, s - 1, 0);
  };
  const int lo = midpoint_compare(below, v);
  const int hi = midpoint_compare(v, above);
  return (lo > 0 || (lo == 0 && even)) && (hi < 0 || (hi == 0 && even));
}

// The decimal as printf's %.<digits>g writes it (trailing zeros removed).
std::string g_format(Decimal d, int digits) {
  std::string s = std::to_string(d.q);
  const auto trimmed = [](std::string f) {
    while (!f.empty() && f.back() == '0') f.pop_back();
    return f.empty() ? f : "." + f;
  };
  if (d.k < digits && d.k >= -4) {
    if (d.k >= 0) return s.substr(0, static_cast<std::size_t>(d.k) + 1) + trimmed(s.substr(static_cast<std::size_t>(d.k) + 1));
    return "0" + trimmed(std::string(static_cast<std::size_t>(-d.k - 1), '0') + s);
  }
  const int e = d.k < 0 ? -d.k : d.k;
  return s.substr(0, 1) + trimmed(s.substr(1)) + (d.k < 0 ? "e-" : "e+") + (e < 10 ? "0" : "") +
         std::to_string(e);
}

}  // namespace

std::string number_string(double x) {
  if (!std::isfinite(x)) return value_string(x);
  // The shortest %g form that reads back as the same double, as printf("%.*g") and strtod would
  // find it; done by hand because printf's and strtod's floating-point code is a tenth of the
  // WASM module's size, for error messages only.
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const std::string sign = (bits >> 63) != 0 ? "-" : "";
  bits &= ~(std::uint64_t{1} << 63);
  if (bits == 0) return sign + "0";
  Decimal d{0, 0};
  int digits = 1;
  for (; digits < 17; ++digits) {
    d = round_to_digits(binary_of(bits), digits);
    if (reads_back(bits, d, digits)) break;
  }
  if (digits == 17) d = round_to_digits(binary_of(bits), 17);
  return sign + g_format(d, digits);
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
