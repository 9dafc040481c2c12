#include "headwise/text.hpp"

#include <algorithm>
#include <stdexcept>

#include "headwise/error.hpp"

namespace headwise {

namespace {

// The code point at text[i] and its length in bytes; throws for bytes that are not UTF-8.
std::uint32_t decode(std::string_view text, std::size_t i, std::size_t& length) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  std::uint32_t cp = 0;
  std::uint32_t min = 0;
  if (b0 < 0x80) {
    length = 1;
    return b0;
  } else if ((b0 & 0xE0) == 0xC0) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    length = 0;
  }
  bool ok = length > 0 && i + length <= text.size();
  for (std::size_t k = 1; ok && k < length; ++k) {
    ok = (byte(i + k) & 0xC0) == 0x80;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (!ok || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    throw Error("utf8", "text", {{"byte", integer(static_cast<std::int64_t>(i))}},
                "text is not UTF-8: byte " + std::to_string(i) +
                                " does not start a valid character");
  }
  return cp;
}

bool is_space(std::uint32_t c) {
  return (c >= 9 && c <= 13) || (c >= 28 && c <= 32) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

// 1 for a letter, 2 for a digit, 0 otherwise (after lower-casing, ASCII only).
int run_kind(std::uint32_t c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 1;
  if (c >= '0' && c <= '9') return 2;
  return 0;
}

}  // namespace

std::vector<TextToken> tokenize_text(std::string_view text) {
  std::vector<TextToken> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t length = 0;
    const std::uint32_t c = decode(text, i, length);
    if (is_space(c)) {
      i += length;
      continue;
    }
    TextToken t;
    t.begin = i;
    const int kind = run_kind(c);
    if (kind == 0) {
      t.word.assign(text.substr(i, length));
      i += length;
    } else {
      while (i < text.size() && run_kind(static_cast<unsigned char>(text[i])) == kind) {
        const char ch = text[i];
        t.word.push_back(ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch);
        ++i;
      }
    }
    t.end = i;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> tokenize_words(std::string_view text) {
  std::vector<std::string> words;
  for (TextToken& t : tokenize_text(text)) words.push_back(std::move(t.word));
  return words;
}

Vocabulary::Vocabulary(std::vector<std::string> words) : words_(std::move(words)) {
  if (words_.empty() || words_[0] != kUnknown) {
    throw Error("format", "weights", {}, "vocabulary: the first word must be \"<unk>\"");
  }
  for (std::size_t i = 0; i < words_.size(); ++i) {
    const std::string& w = words_[i];
    if (w.empty() || w.find('\n') != std::string::npos) {
      throw Error("format", "weights", {{"index", integer(static_cast<std::int64_t>(i))}},
                  "vocabulary: word " + std::to_string(i) + " is empty or holds a line break");
    }
    if (!index_.emplace(w, static_cast<std::int64_t>(i)).second) {
      throw Error("format", "weights", {{"index", integer(static_cast<std::int64_t>(i))}},
                  "vocabulary: word " + std::to_string(i) + " (\"" + w +
                                  "\") is listed twice");
    }
  }
}

Vocabulary Vocabulary::most_frequent(const std::vector<std::string>& words, std::size_t k) {
  std::unordered_map<std::string, std::int64_t> counts;
  for (const std::string& w : words) ++counts[w];
  std::vector<std::pair<std::string, std::int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::string> list = {kUnknown};
  for (std::size_t i = 0; i < sorted.size() && i < k; ++i) list.push_back(sorted[i].first);
  return Vocabulary(std::move(list));
}

std::int64_t Vocabulary::id(const std::string& word) const {
  const auto it = index_.find(word);
  return it == index_.end() ? 0 : it->second;
}

std::vector<std::int32_t> Vocabulary::ids(const std::vector<std::string>& words) const {
  std::vector<std::int32_t> out;
  out.reserve(words.size());
  for (const std::string& w : words) out.push_back(static_cast<std::int32_t>(id(w)));
  return out;
}

namespace {
std::int64_t draw(NumpyRandomState& rng, std::int64_t high) { return rng.randint(high, 1, 1)(0, 0); }
}  // namespace

SpanCopy repeat_span(NumpyRandomState& rng, IntMatrix& windows, Index row) {
  const Index m = windows.cols();
  SpanCopy s;
  s.length = 4 + draw(rng, m / 2 - 3);
  s.from = draw(rng, m - 2 * s.length + 1);
  s.to = s.from + s.length + draw(rng, m - s.from - 2 * s.length + 1);
  for (Index j = 0; j < s.length; ++j) windows(row, s.to + j) = windows(row, s.from + j);
  return s;
}

IntMatrix draw_text_windows(const std::vector<std::int32_t>& stream, NumpyRandomState& rng,
                            Index batch, Index n, double repeat_share) {
  const Index size = static_cast<Index>(stream.size());
  if (size < n + 2 || n + 1 < 8) {
    throw Error("internal", "", {}, "draw_text_windows: the stream (" + std::to_string(size) +
                                " tokens) must be longer than a window (" + std::to_string(n + 1) +
                                ", at least 8)");
  }
  const IntMatrix starts = rng.randint(size - n, batch, 1);
  IntMatrix w(batch, n + 1);
  for (Index b = 0; b < batch; ++b)
    for (Index i = 0; i <= n; ++i) w(b, i) = stream[static_cast<std::size_t>(starts(b, 0) + i)];
  for (Index b = 0; b < batch; ++b)
    if (rng.random_double() < repeat_share) repeat_span(rng, w, b);
  return w;
}

IntMatrix draw_skip_repeat_windows(NumpyRandomState& rng, Index batch, Index n,
                                   std::int64_t vocab, double skip_share,
                                   const std::vector<std::int64_t>& permutation) {
  if (vocab < 3 || static_cast<std::int64_t>(permutation.size()) != vocab || n + 1 < 8) {
    throw Error("internal", "", {}, "draw_skip_repeat_windows: vocab (" + std::to_string(vocab) +
                                ") must be at least 3 with a permutation of that size, windows at "
                                "least 8 long");
  }
  IntMatrix w = rng.randint(vocab - 1, batch, n + 1);
  w.array() += 1;
  for (Index b = 0; b < batch; ++b) {
    for (Index i = 2; i <= n; ++i)
      if (rng.random_double() < skip_share)
        w(b, i) = permutation[static_cast<std::size_t>(w(b, i - 2))];
    repeat_span(rng, w, b);
  }
  return w;
}

std::vector<std::int64_t> draw_permutation(NumpyRandomState& rng, std::int64_t vocab) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(vocab));
  for (std::int64_t i = 0; i < vocab; ++i) p[static_cast<std::size_t>(i)] = i;
  // Shuffle p[1 .. vocab - 1]: position 1 + i for i = count - 1 .. 1.
  const std::int64_t count = vocab - 1;
  for (std::int64_t i = count - 1; i >= 1; --i) {
    const std::int64_t j = draw(rng, i + 1);
    std::swap(p[static_cast<std::size_t>(1 + i)], p[static_cast<std::size_t>(1 + j)]);
  }
  return p;
}

}  // namespace headwise
