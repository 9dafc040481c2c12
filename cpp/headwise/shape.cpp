#include "headwise/shape.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "headwise/error.hpp"

namespace headwise {

namespace {

std::string value_string(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

// A non-negative integer in base 2^32, least significant word first: just enough arithmetic to
// compare a double's exact value with decimal numbers. Fixed size, no allocation: the largest
// value formed is below 2^1200 (2^1074 * 10^15 * 2^57 on the way to a digit), and 48 words hold
// 1536 bits.
class Big {
 public:
  explicit Big(std::uint64_t v) {
    for (; v != 0; v >>= 32) words_[size_++] = static_cast<std::uint32_t>(v);
  }
  void mul_small(std::uint32_t f) {
    std::uint64_t carry = 0;
    for (int i = 0; i < size_; ++i) {
      const std::uint64_t t = static_cast<std::uint64_t>(words_[i]) * f + carry;
      words_[i] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) push(static_cast<std::uint32_t>(carry));
  }
  void mul_pow10(int n) {
    static const std::uint32_t kPow10[9] = {1,      10,      100,      1000,     10000,
                                            100000, 1000000, 10000000, 100000000};
    for (; n >= 9; n -= 9) mul_small(1000000000u);
    if (n > 0) mul_small(kPow10[n]);
  }
  void shl(int bits) {
    if (size_ == 0) return;
    const int r = bits % 32;
    if (r != 0) {
      std::uint32_t carry = 0;
      for (int i = 0; i < size_; ++i) {
        const std::uint32_t next = words_[i] >> (32 - r);
        words_[i] = (words_[i] << r) | carry;
        carry = next;
      }
      if (carry != 0) push(carry);
    }
    const int w = bits / 32;
    if (w == 0) return;
    if (size_ + w > kWords) throw std::logic_error("number_string: integer too large");
    for (int i = size_ - 1; i >= 0; --i) words_[i + w] = words_[i];
    for (int i = 0; i < w; ++i) words_[i] = 0;
    size_ += w;
  }
  // *this -= o, where o <= *this.
  void sub(const Big& o) {
    std::uint32_t borrow = 0;
    for (int i = 0; i < size_; ++i) {
      const std::uint64_t take = static_cast<std::uint64_t>(i < o.size_ ? o.words_[i] : 0u) + borrow;
      borrow = words_[i] < take ? 1u : 0u;
      words_[i] = static_cast<std::uint32_t>(words_[i] - take);
    }
    while (size_ > 0 && words_[size_ - 1] == 0) --size_;
  }
  friend int compare(const Big& a, const Big& b) {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (int i = a.size_; i-- > 0;) {
      if (a.words_[i] != b.words_[i]) return a.words_[i] < b.words_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  static constexpr int kWords = 48;
  void push(std::uint32_t w) {
    if (size_ == kWords) throw std::logic_error("number_string: integer too large");
    words_[size_++] = w;
  }
  std::uint32_t words_[kWords] = {};
  int size_ = 0;
};

// A finite, positive double's exact value as m * 2^e (m < 2^53), from its bits.
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

// q * 10^(k - digits + 1), 10^(digits-1) <= q < 10^digits: what %.<digits>e prints.
struct Decimal {
  std::uint64_t q;
  int k;
  int digits;
};

// The shortest decimal that printf("%.*g") writes and strtod reads back as the double with these
// bits (positive, finite, not zero). One pass over the exact decimal expansion (Steele & White's
// digit generation): after each digit, the value rounded there half to even (as printf rounds)
// reads back if it lies between the midpoints to the neighbouring doubles, or on one of them when
// the double's last bit is even (strtod rounds half to even too).
Decimal shortest_decimal(std::uint64_t bits) {
  const Binary v = binary_of(bits);
  const bool even = (bits & 1) == 0;
  // Everything times 4 over a common denominator: x = n / d; the distances to the midpoints,
  // half an ulp each way, are lo / d and hi / d (below a power of two the ulp below is half).
  Big n(v.m * 4);
  Big hi(2);
  Big lo(v.m == (std::uint64_t{1} << 52) && v.e > -1074 ? 1 : 2);
  Big d(4);
  if (v.e >= 0) {
    n.shl(v.e);
    hi.shl(v.e);
    lo.shl(v.e);
  } else {
    d.shl(-v.e);
  }
  // Scale to 1 <= x / 10^k < 10: an estimate of k from the binary exponent (off by one at
  // most), then exact checks.
  int bit_length = 0;
  for (std::uint64_t m = v.m; m != 0; m >>= 1) ++bit_length;
  int k = static_cast<int>(std::floor((v.e + bit_length - 1) * 0.30102999566398120));
  const auto scale_up = [&](int times) {
    n.mul_pow10(times);
    hi.mul_pow10(times);
    lo.mul_pow10(times);
  };
  if (k >= 0) d.mul_pow10(k); else scale_up(-k);
  if (compare(n, d) < 0) {
    --k;
    scale_up(1);
  } else {
    Big ten_d = d;
    ten_d.mul_small(10);
    if (compare(n, ten_d) >= 0) {
      ++k;
      d = ten_d;
    }
  }
  std::uint64_t q = 0;
  std::uint64_t power = 1;  // 10^digits
  for (int digits = 1;; ++digits) {
    // The next digit: n / d is in [0, 10).
    int digit = 0;
    while (compare(n, d) >= 0) {
      n.sub(d);
      ++digit;
    }
    q = q * 10 + static_cast<std::uint64_t>(digit);
    power *= 10;
    // n / d is now what is left below the last digit, in units of that digit.
    Big twice = n;
    twice.shl(1);
    const int half = compare(twice, d);
    const bool up = half > 0 || (half == 0 && (q & 1) != 0);
    bool reads_back = false;
    if (up) {
      Big rest = d;  // distance up to q + 1
      rest.sub(n);
      const int c = compare(rest, hi);
      reads_back = c < 0 || (c == 0 && even);
    } else {
      const int c = compare(n, lo);
      reads_back = c < 0 || (c == 0 && even);
    }
    if (reads_back || digits == 17) {
      if (up && ++q == power) return {power / 10, k + 1, digits};
      return {q, k, digits};
    }
    n.mul_small(10);
    hi.mul_small(10);
    lo.mul_small(10);
  }
}

// The decimal as printf's %.<digits>g writes it (trailing zeros removed).
std::string g_format(Decimal d) {
  const int digits = d.digits;
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
  return sign + g_format(shortest_decimal(bits));
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
    throw Error("shape", api_field(name),
                {{"rows", integer(actual_rows)},
                 {"cols", integer(actual_cols)},
                 {"expectedRows", integer(rows)},
                 {"expectedCols", integer(cols)}},
                name + " has shape " + shape_string(actual_rows, actual_cols) + " but must be " +
                    shape_string(rows, cols));
  }
}

void require_length(const Vector& v, Index n, const std::string& name) {
  if (v.size() != n) {
    throw Error("length", api_field(name), {{"length", integer(v.size())}, {"expected", integer(n)}},
                name + " has length " + std::to_string(v.size()) + " but must have length " +
                    std::to_string(n));
  }
}

void require_nonempty(const Matrix& m, const std::string& name) {
  if (m.rows() == 0 || m.cols() == 0) {
    throw Error("empty", api_field(name), {{"rows", integer(m.rows())}, {"cols", integer(m.cols())}},
                name + " has shape " + shape_string(m.rows(), m.cols()) +
                    "; it must have at least one row and one column");
  }
}

void require_finite(const Matrix& m, const std::string& name) {
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) {
        throw Error("finite", api_field(name),
                    {{"value", value_string(m(i, j))}, {"row", integer(i)}, {"col", integer(j)}},
                    name + " contains a non-finite value (" + value_string(m(i, j)) + ") at [" +
                        std::to_string(i) + ", " + std::to_string(j) +
                        "]; all values must be finite");
      }
}

void require_finite(const Vector& v, const std::string& name) {
  for (Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) {
      throw Error("finite", api_field(name), {{"value", value_string(v[i])}, {"row", integer(i)}},
                  name + " contains a non-finite value (" + value_string(v[i]) + ") at [" +
                      std::to_string(i) + "]; all values must be finite");
    }
}

void require_positive(long long value, const std::string& name) {
  if (value < 1) {
    throw Error("positive", api_field(name), {{"value", integer(value)}},
                name + " (" + std::to_string(value) + ") must be a positive integer");
  }
}

void require_at_most(std::int64_t value, std::int64_t hi, const std::string& name) {
  if (value > hi) {
    throw Error("atMost", api_field(name), {{"value", integer(value)}, {"max", integer(hi)}},
                name + " (" + std::to_string(value) + ") must be at most " + std::to_string(hi));
  }
}

void require_range(std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& name,
                   const std::string& field) {
  if (value < lo || value > hi) {
    throw Error("range", field.empty() ? api_field(name) : field,
                {{"value", integer(value)}, {"min", integer(lo)}, {"max", integer(hi)}},
                name + " (" + std::to_string(value) + ") must be between " + std::to_string(lo) +
                    " and " + std::to_string(hi));
  }
}

}  // namespace headwise
