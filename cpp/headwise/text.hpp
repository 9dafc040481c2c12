// Words for the text model: the tokeniser, the vocabulary and the training batches.
//
// Tokeniser: ASCII 'A'-'Z' become 'a'-'z' (nothing else changes); the tokens are, left to right,
// the maximal runs of [a-z], the maximal runs of [0-9], and each other character that is not
// white space, alone (one UTF-8 code point). So "Don't" -> don ' t and "$1,000." -> $ 1 , 000 .
// White space (it only separates) is Python's str.isspace(): ASCII 9-13 and 28-32, U+0085,
// U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "headwise/numpy_random.hpp"
#include "headwise/types.hpp"

namespace headwise {

// One token of a text: its characters and where it starts and ends in the text's bytes.
struct TextToken {
  std::string word;
  std::size_t begin = 0, end = 0;
};

// The tokens of UTF-8 text. Throws std::invalid_argument for bytes that are not UTF-8, saying
// where.
std::vector<TextToken> tokenize_text(std::string_view text);
// Only the words.
std::vector<std::string> tokenize_words(std::string_view text);

// The words a model knows: id 0 is "<unk>", every word the model does not know.
class Vocabulary {
 public:
  static constexpr const char* kUnknown = "<unk>";
  Vocabulary() = default;
  // words[0] must be "<unk>"; the others distinct, not empty and without '\n'. Throws
  // std::invalid_argument saying which word is wrong.
  explicit Vocabulary(std::vector<std::string> words);
  // "<unk>" and the k most frequent words of `words`, by count descending, ties by the word's
  // bytes ascending (code points ascending).
  static Vocabulary most_frequent(const std::vector<std::string>& words, std::size_t k);

  std::int64_t size() const { return static_cast<std::int64_t>(words_.size()); }
  // The word's id, 0 for a word not in the vocabulary.
  std::int64_t id(const std::string& word) const;
  const std::string& word(std::int64_t id) const { return words_.at(static_cast<std::size_t>(id)); }
  const std::vector<std::string>& words() const { return words_; }
  std::vector<std::int32_t> ids(const std::vector<std::string>& words) const;

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::int64_t> index_;
};

// A repeated span: window[to + j] = window[from + j] for j < length.
struct SpanCopy {
  Index from = 0, to = 0, length = 0;
};

// In a window of m tokens: length = 4 + randint(m / 2 - 3) (4 .. m / 2), from =
// randint(m - 2 * length + 1), to = from + length + randint(m - from - 2 * length + 1), each a
// randint(k, size=(1, 1)) draw of rng; then the copy. m >= 8.
SpanCopy repeat_span(NumpyRandomState& rng, IntMatrix& windows, Index row);

// `batch` windows of n + 1 consecutive tokens of stream (the inputs are the first n, the targets
// the last n): starts = randint(stream.size() - n, size=(batch, 1)); then, per window, when
// random_sample() < repeat_share, a span of the window repeated later in it (repeat_span).
IntMatrix draw_text_windows(const std::vector<std::int32_t>& stream, NumpyRandomState& rng,
                            Index batch, Index n, double repeat_share);

// The synthetic warm-up task for the attention layers: `batch` windows of n + 1 words from
// 1 .. vocab - 1: tokens = 1 + randint(vocab - 1, size=(batch, n + 1)); then row by row, for
// i >= 2, when random_sample() < skip_share, x[i] = permutation[x[i - 2]]; then each row's
// repeat_span. permutation: a map of 1 .. vocab - 1 onto itself (index 0 unused).
IntMatrix draw_skip_repeat_windows(NumpyRandomState& rng, Index batch, Index n,
                                   std::int64_t vocab, double skip_share,
                                   const std::vector<std::int64_t>& permutation);

// A permutation of 1 .. vocab - 1 (index 0 maps to 0): Fisher-Yates from the end, j =
// randint(i + 1) for i = vocab - 2 .. 1 over the list 1 .. vocab - 1.
std::vector<std::int64_t> draw_permutation(NumpyRandomState& rng, std::int64_t vocab);

}  // namespace headwise
