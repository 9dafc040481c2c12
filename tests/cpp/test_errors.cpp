// Every std::invalid_argument the core throws, with its exact message: what was given and what
// is allowed. The same messages reach the page as JS Errors, so they are part of the contract.
// Each is a headwise::Error too: its code, field and parameters (the last TEST_CASEs) are what
// the page places and translates an error by.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "headwise/attention.hpp"
#include "headwise/compare.hpp"
#include "headwise/error.hpp"
#include "headwise/lesson.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/torch_layout.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/trainer.hpp"

using headwise::BoolMatrix;
using headwise::BoolVector;
using headwise::Index;
using headwise::Matrix;
using headwise::MhaWeights;
using headwise::TorchForwardOptions;
using headwise::TorchMhaConfig;
using headwise::TorchMhaParams;
using headwise::Vector;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Valid lesson-convention weights for d_model = 8.
MhaWeights valid_weights(Index d = 8) {
  MhaWeights w;
  w.wq = Matrix::Identity(d, d);
  w.wk = Matrix::Identity(d, d);
  w.wv = Matrix::Identity(d, d);
  w.wo = Matrix::Identity(d, d);
  return w;
}

MhaWeights valid_weights_with_bias(Index d = 8) {
  MhaWeights w = valid_weights(d);
  w.bq = Vector::Zero(d);
  w.bk = Vector::Zero(d);
  w.bv = Vector::Zero(d);
  w.bo = Vector::Zero(d);
  return w;
}

TorchMhaConfig torch_config(bool bias = true) {
  TorchMhaConfig c;
  c.embed_dim = 8;
  c.num_heads = 2;
  c.bias = bias;
  return c;
}

// Valid packed parameters for torch_config(bias).
TorchMhaParams torch_params(bool bias = true) {
  TorchMhaParams p;
  p.in_proj_weight = Matrix::Constant(24, 8, 0.1);
  p.out_proj_weight = Matrix::Identity(8, 8);
  if (bias) {
    p.in_proj_bias = Vector::Zero(24);
    p.out_proj_bias = Vector::Zero(8);
  }
  return p;
}

// Valid separate-projection parameters for embed_dim 8, kdim 5, vdim 7, bias.
TorchMhaParams separate_params() {
  TorchMhaParams p;
  p.q_proj_weight = Matrix::Constant(8, 8, 0.1);
  p.k_proj_weight = Matrix::Constant(8, 5, 0.1);
  p.v_proj_weight = Matrix::Constant(8, 7, 0.1);
  p.in_proj_bias = Vector::Zero(24);
  p.out_proj_weight = Matrix::Identity(8, 8);
  p.out_proj_bias = Vector::Zero(8);
  return p;
}

}  // namespace

TEST_CASE("errors: NumpyRandomState seeds and randn shapes", "[errors][numpy_random]") {
  using headwise::NumpyRandomState;
  CHECK_THROWS_AS(NumpyRandomState(-1), std::invalid_argument);
  CHECK_THROWS_WITH(NumpyRandomState(-1), "seed (-1) must be an integer between 0 and 4294967295");
  CHECK_THROWS_WITH(NumpyRandomState(4294967296LL),
                    "seed (4294967296) must be an integer between 0 and 4294967295");
  CHECK_THROWS_WITH(NumpyRandomState(std::numeric_limits<std::int64_t>::min()),
                    "seed (-9223372036854775808) must be an integer between 0 and 4294967295");
  NumpyRandomState rng(0);
  CHECK_THROWS_WITH(rng.seed(4294967296LL),
                    "seed (4294967296) must be an integer between 0 and 4294967295");
  CHECK_THROWS_AS(rng.randn(-1, 2), std::invalid_argument);
  CHECK_THROWS_WITH(rng.randn(-1, 2), "randn shape (-1, 2) must not be negative");
  CHECK_THROWS_WITH(rng.randn(2, -3), "randn shape (2, -3) must not be negative");
  CHECK_THROWS_WITH(rng.randn(-3), "randn length (-3) must not be negative");
}

TEST_CASE("errors: head_dim needs positive sizes and divisibility", "[errors][multi_head]") {
  using headwise::head_dim;
  CHECK_THROWS_AS(head_dim(10, 4), std::invalid_argument);
  CHECK_THROWS_WITH(head_dim(10, 4), "d_model (10) must be divisible by num_heads (4)");
  CHECK_THROWS_WITH(head_dim(8, 3), "d_model (8) must be divisible by num_heads (3)");
  CHECK_THROWS_WITH(head_dim(8, 0), "num_heads (0) must be a positive integer");
  CHECK_THROWS_WITH(head_dim(8, -2), "num_heads (-2) must be a positive integer");
  CHECK_THROWS_WITH(head_dim(0, 2), "d_model (0) must be a positive integer");
  CHECK_THROWS_WITH(head_dim(-8, 2), "d_model (-8) must be a positive integer");
}

TEST_CASE("errors: split_head and merge_heads", "[errors][multi_head]") {
  const Matrix m = Matrix::Zero(3, 8);
  CHECK_THROWS_WITH(headwise::split_head(m, 2, 2), "head index (2) must be between 0 and 1");
  CHECK_THROWS_WITH(headwise::split_head(m, 2, -1), "head index (-1) must be between 0 and 1");
  CHECK_THROWS_WITH(headwise::split_head(Matrix::Zero(3, 10), 4, 0),
                    "d_model (10) must be divisible by num_heads (4)");
  CHECK_THROWS_WITH(headwise::merge_heads({}), "merge_heads needs at least one head");
  CHECK_THROWS_WITH(headwise::merge_heads({Matrix::Zero(3, 4), Matrix::Zero(3, 2)}),
                    "head 1 has shape (3, 2) but must be (3, 4)");
  CHECK_THROWS_WITH(headwise::merge_heads({Matrix::Zero(3, 4), Matrix::Zero(2, 4)}),
                    "head 1 has shape (2, 4) but must be (3, 4)");
}

TEST_CASE("errors: multi_head_attention shapes", "[errors][multi_head]") {
  using headwise::multi_head_attention;
  const Matrix x = Matrix::Ones(5, 8);  // (n=5, d_model=8)
  CHECK_NOTHROW(multi_head_attention(x, valid_weights(), 2));

  CHECK_THROWS_AS(multi_head_attention(Matrix::Ones(5, 10), valid_weights(10), 4),
                  std::invalid_argument);
  CHECK_THROWS_WITH(multi_head_attention(Matrix::Ones(5, 10), valid_weights(10), 4),
                    "d_model (10) must be divisible by num_heads (4)");
  CHECK_THROWS_WITH(multi_head_attention(x, valid_weights(), 0),
                    "num_heads (0) must be a positive integer");
  CHECK_THROWS_WITH(multi_head_attention(x, valid_weights(), -1),
                    "num_heads (-1) must be a positive integer");
  CHECK_THROWS_WITH(multi_head_attention(Matrix(0, 8), valid_weights(), 2),
                    "x has shape (0, 8); it must have at least one row and one column");
  CHECK_THROWS_WITH(multi_head_attention(Matrix(5, 0), valid_weights(), 2),
                    "x has shape (5, 0); it must have at least one row and one column");

  MhaWeights w = valid_weights();
  w.wq = Matrix::Identity(3, 8);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2), "wq has shape (3, 8) but must be (8, 8)");
  w = valid_weights();
  w.wk = Matrix::Identity(8, 4);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2), "wk has shape (8, 4) but must be (8, 8)");
  w = valid_weights();
  w.wv = Matrix::Identity(7, 7);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2), "wv has shape (7, 7) but must be (8, 8)");
  w = valid_weights();
  w.wo = Matrix::Identity(8, 7);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2), "wo has shape (8, 7) but must be (8, 8)");
  // x with a different d_model than the weights.
  CHECK_THROWS_WITH(multi_head_attention(Matrix::Ones(5, 4), valid_weights(), 2),
                    "wq has shape (8, 8) but must be (4, 4)");
}

TEST_CASE("errors: multi_head_attention biases", "[errors][multi_head]") {
  using headwise::multi_head_attention;
  const Matrix x = Matrix::Ones(5, 8);
  CHECK_NOTHROW(multi_head_attention(x, valid_weights_with_bias(), 2));

  MhaWeights w = valid_weights();
  w.bq = Vector::Zero(8);
  w.bk = Vector::Zero(8);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2),
                    "biases must be given all together (bq, bk, bv, bo) or not at all; "
                    "2 of 4 were given");
  w = valid_weights_with_bias();
  w.bo.reset();
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2),
                    "biases must be given all together (bq, bk, bv, bo) or not at all; "
                    "3 of 4 were given");
  w = valid_weights_with_bias();
  w.bv = Vector::Zero(7);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2), "bv has length 7 but must have length 8");
  w = valid_weights_with_bias();
  w.bq = Vector::Zero(9);
  CHECK_THROWS_WITH(multi_head_attention(x, w, 2), "bq has length 9 but must have length 8");
}

TEST_CASE("errors: multi_head_attention rejects non-finite inputs", "[errors][multi_head]") {
  using headwise::multi_head_attention;
  Matrix x = Matrix::Ones(5, 8);
  x(2, 3) = kInf;
  CHECK_THROWS_WITH(multi_head_attention(x, valid_weights(), 2),
                    "x contains a non-finite value (inf) at [2, 3]; all values must be finite");
  x(2, 3) = -kInf;
  CHECK_THROWS_WITH(multi_head_attention(x, valid_weights(), 2),
                    "x contains a non-finite value (-inf) at [2, 3]; all values must be finite");
  x(2, 3) = kNaN;
  CHECK_THROWS_WITH(multi_head_attention(x, valid_weights(), 2),
                    "x contains a non-finite value (nan) at [2, 3]; all values must be finite");

  const Matrix ok = Matrix::Ones(5, 8);
  MhaWeights w = valid_weights();
  w.wk(1, 2) = kNaN;
  CHECK_THROWS_WITH(multi_head_attention(ok, w, 2),
                    "wk contains a non-finite value (nan) at [1, 2]; all values must be finite");
  w = valid_weights();
  w.wo(7, 0) = -kInf;
  CHECK_THROWS_WITH(multi_head_attention(ok, w, 2),
                    "wo contains a non-finite value (-inf) at [7, 0]; all values must be finite");
  w = valid_weights_with_bias();
  (*w.bo)[0] = kNaN;
  CHECK_THROWS_WITH(multi_head_attention(ok, w, 2),
                    "bo contains a non-finite value (nan) at [0]; all values must be finite");
}

TEST_CASE("errors: scaled_dot_product_attention shapes", "[errors][attention]") {
  using headwise::scaled_dot_product_attention;
  const Matrix q = Matrix::Ones(5, 4);
  const Matrix k = Matrix::Ones(5, 4);
  const Matrix v = Matrix::Ones(5, 6);
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, Matrix::Ones(5, 3), v),
                    "k has 3 columns but q has 4; q and k must have the same feature size");
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, Matrix::Ones(4, 6)),
                    "v has 4 rows but k has 5; k and v must have one row per key");
  const Matrix bad_mask = Matrix::Zero(4, 5);
  CHECK_THROWS_WITH(scaled_dot_product_attention(q, k, v, &bad_mask),
                    "attention mask has shape (4, 5) but must be (5, 5)");
  CHECK_THROWS_WITH(scaled_dot_product_attention(Matrix(0, 4), k, v),
                    "q has shape (0, 4); it must have at least one row and one column");
}

TEST_CASE("errors: validate_sizes and seed_experiment", "[errors][lesson]") {
  using headwise::seed_experiment;
  using headwise::SeedExperimentConfig;
  using headwise::validate_sizes;
  CHECK_NOTHROW(validate_sizes(5, 8, 2));
  CHECK_NOTHROW(validate_sizes(2048, 2048, 1));
  CHECK_THROWS_WITH(validate_sizes(0, 8, 2), "tokens (0) must be a positive integer");
  CHECK_THROWS_WITH(validate_sizes(-3, 8, 2), "tokens (-3) must be a positive integer");
  CHECK_THROWS_WITH(validate_sizes(5, 0, 2), "d_model (0) must be a positive integer");
  CHECK_THROWS_WITH(validate_sizes(5, 8, 0), "num_heads (0) must be a positive integer");
  CHECK_THROWS_WITH(validate_sizes(5, 10, 4), "d_model (10) must be divisible by num_heads (4)");
  CHECK_THROWS_WITH(validate_sizes(2049, 8, 2), "tokens (2049) must be at most 2048");
  CHECK_THROWS_WITH(validate_sizes(5, 2049, 1), "d_model (2049) must be at most 2048");
  // 7 n d + 4 d^2 + h n^2 doubles: 2048 tokens, d 1024, 16 heads needs 656 MiB.
  CHECK_THROWS_WITH(validate_sizes(2048, 1024, 16),
                    "tokens (2048), d_model (1024) and num_heads (16) would need 656 MiB; "
                    "at most 512 MiB is allowed");
  CHECK_THROWS_WITH(validate_sizes(2048, 2048, 2048),
                    "tokens (2048), d_model (2048) and num_heads (2048) would need 65888 MiB; "
                    "at most 512 MiB is allowed");

  SeedExperimentConfig c;
  c.seed = -1;
  CHECK_THROWS_WITH(seed_experiment(c), "seed (-1) must be an integer between 0 and 4294967295");
  c.seed = 4294967296LL;
  CHECK_THROWS_WITH(seed_experiment(c),
                    "seed (4294967296) must be an integer between 0 and 4294967295");
  c = SeedExperimentConfig{};
  c.d_model = 10;
  c.num_heads = 4;
  CHECK_THROWS_WITH(seed_experiment(c), "d_model (10) must be divisible by num_heads (4)");
  c = SeedExperimentConfig{};
  c.tokens = 0;
  CHECK_THROWS_WITH(seed_experiment(c), "tokens (0) must be a positive integer");
  c.seed = -1;  // sizes are checked first
  CHECK_THROWS_WITH(seed_experiment(c), "tokens (0) must be a positive integer");
}

TEST_CASE("errors: parameter_table configs", "[errors][torch]") {
  using headwise::parameter_table;
  TorchMhaConfig c = torch_config();
  c.embed_dim = 10;
  c.num_heads = 4;
  CHECK_THROWS_WITH(parameter_table(c), "embed_dim (10) must be divisible by num_heads (4)");
  c = torch_config();
  c.embed_dim = 0;
  CHECK_THROWS_WITH(parameter_table(c), "embed_dim (0) must be a positive integer");
  c = torch_config();
  c.num_heads = 0;
  CHECK_THROWS_WITH(parameter_table(c), "num_heads (0) must be a positive integer");
  c = torch_config();
  c.kdim = -1;
  CHECK_THROWS_WITH(parameter_table(c), "kdim (-1) must be a positive integer");
  c = torch_config();
  c.vdim = -7;
  CHECK_THROWS_WITH(parameter_table(c), "vdim (-7) must be a positive integer");
}

TEST_CASE("errors: pack_lesson_weights and unpack_lesson_weights", "[errors][torch]") {
  MhaWeights w = valid_weights();
  w.wk = Matrix::Identity(8, 7);
  CHECK_THROWS_WITH(headwise::pack_lesson_weights(w), "wk has shape (8, 7) but must be (8, 8)");
  TorchMhaParams p = separate_params();
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "unpacking needs in_proj_weight (the layout used when kdim == vdim == "
                    "embed_dim)");
  p = torch_params();
  p.in_proj_weight = Matrix::Zero(16, 8);
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "in_proj_weight has shape (16, 8) but must be (24, 8)");
  p = torch_params();
  p.in_proj_bias = Vector::Zero(23);
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "in_proj_bias has length 23 but must have length 24");
  p = torch_params();
  p.out_proj_bias = Vector::Zero(7);  // named as PyTorch's, not as the lesson's bo
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "out_proj_bias has length 7 but must have length 8");
  p = torch_params();
  p.in_proj_bias = Vector::Zero(24);
  p.out_proj_bias.reset();
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "in_proj_bias was given without out_proj_bias; give both or neither");
  p = torch_params();
  p.in_proj_bias.reset();
  p.out_proj_bias = Vector::Zero(8);
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "out_proj_bias was given without in_proj_bias; give both or neither");
  p = torch_params();
  (*p.in_proj_weight)(3, 2) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(headwise::unpack_lesson_weights(p),
                    "wq contains a non-finite value (nan) at [2, 3]; all values must be finite");
}

TEST_CASE("errors: torch_mha_forward parameters", "[errors][torch]") {
  using headwise::torch_mha_forward;
  const Matrix x = Matrix::Ones(5, 8);
  CHECK_NOTHROW(torch_mha_forward(torch_config(), torch_params(), x, x, x));

  TorchMhaParams p = torch_params();
  p.in_proj_weight.reset();
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "in_proj_weight is required when kdim and vdim equal embed_dim");
  p = torch_params();
  p.q_proj_weight = Matrix::Zero(8, 8);
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "q_proj_weight, k_proj_weight and v_proj_weight are only used when kdim or "
                    "vdim differ from embed_dim; give in_proj_weight instead");
  p = torch_params();
  p.in_proj_weight = Matrix::Zero(24, 7);
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "in_proj_weight has shape (24, 7) but must be (24, 8)");
  p = torch_params();
  p.out_proj_weight = Matrix::Zero(8, 6);
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "out_proj_weight has shape (8, 6) but must be (8, 8)");
  p = torch_params();
  (*p.in_proj_weight)(3, 4) = kNaN;
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "in_proj_weight contains a non-finite value (nan) at [3, 4]; all values "
                    "must be finite");

  // Biases must follow config.bias.
  p = torch_params(false);
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(true), p, x, x, x),
                    "in_proj_bias and out_proj_bias are required when bias is true");
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(false), torch_params(true), x, x, x),
                    "in_proj_bias and out_proj_bias must not be given when bias is false");
  p = torch_params();
  p.in_proj_bias = Vector::Zero(8);
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "in_proj_bias has length 8 but must have length 24");
  p = torch_params();
  p.out_proj_bias = Vector::Zero(24);
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "out_proj_bias has length 24 but must have length 8");
  p = torch_params();
  (*p.in_proj_bias)[17] = kNaN;
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "in_proj_bias contains a non-finite value (nan) at [17]; all values must be finite");
  p = torch_params();
  (*p.out_proj_bias)[7] = kInf;
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "out_proj_bias contains a non-finite value (inf) at [7]; all values must be finite");

  // bias_k / bias_v must follow config.add_bias_kv.
  TorchMhaConfig kv = torch_config();
  kv.add_bias_kv = true;
  CHECK_THROWS_WITH(torch_mha_forward(kv, torch_params(), x, x, x),
                    "bias_k and bias_v are required when add_bias_kv is true");
  p = torch_params();
  p.bias_k = Vector::Zero(8);
  p.bias_v = Vector::Zero(8);
  CHECK_NOTHROW(torch_mha_forward(kv, p, x, x, x));
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), p, x, x, x),
                    "bias_k and bias_v must not be given when add_bias_kv is false");
  p.bias_k = Vector::Zero(7);
  CHECK_THROWS_WITH(torch_mha_forward(kv, p, x, x, x),
                    "bias_k has length 7 but must have length 8");
  p.bias_k = Vector::Zero(8);
  p.bias_v = Vector::Zero(9);
  CHECK_THROWS_WITH(torch_mha_forward(kv, p, x, x, x),
                    "bias_v has length 9 but must have length 8");
  p.bias_v = Vector::Zero(8);
  (*p.bias_v)[2] = std::nan("");
  CHECK_THROWS_WITH(torch_mha_forward(kv, p, x, x, x),
                    "bias_v contains a non-finite value (nan) at [2]; all values must be finite");
  (*p.bias_v)[2] = 0.0;
  (*p.bias_k)[5] = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(torch_mha_forward(kv, p, x, x, x),
                    "bias_k contains a non-finite value (-inf) at [5]; all values must be finite");

  // Separate projections (kdim / vdim != embed_dim).
  TorchMhaConfig sep = torch_config();
  sep.kdim = 5;
  sep.vdim = 7;
  const Matrix key = Matrix::Ones(4, 5);
  const Matrix value = Matrix::Ones(4, 7);
  CHECK_NOTHROW(torch_mha_forward(sep, separate_params(), x, key, value));
  CHECK_THROWS_WITH(torch_mha_forward(sep, torch_params(), x, key, value),
                    "in_proj_weight is only used when kdim and vdim equal embed_dim; give "
                    "q_proj_weight, k_proj_weight and v_proj_weight instead");
  p = separate_params();
  p.v_proj_weight.reset();
  CHECK_THROWS_WITH(torch_mha_forward(sep, p, x, key, value),
                    "q_proj_weight, k_proj_weight and v_proj_weight are all required when kdim "
                    "or vdim differ from embed_dim");
  p = separate_params();
  p.k_proj_weight = Matrix::Zero(8, 8);
  CHECK_THROWS_WITH(torch_mha_forward(sep, p, x, key, value),
                    "k_proj_weight has shape (8, 8) but must be (8, 5)");
}

TEST_CASE("errors: torch_mha_forward inputs", "[errors][torch]") {
  using headwise::torch_mha_forward;
  const TorchMhaConfig c = torch_config();
  const TorchMhaParams p = torch_params();
  const Matrix q = Matrix::Ones(5, 8);   // (L=5, E=8)
  const Matrix kv = Matrix::Ones(6, 8);  // (S=6, E=8)
  CHECK_NOTHROW(torch_mha_forward(c, p, q, kv, kv));

  CHECK_THROWS_WITH(torch_mha_forward(c, p, Matrix::Ones(5, 7), kv, kv),
                    "query has 7 columns but must have embed_dim (8)");
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, Matrix::Ones(6, 5), kv),
                    "key has 5 columns but must have kdim (8)");
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, Matrix::Ones(6, 7)),
                    "value has 7 columns but must have vdim (8)");
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, Matrix::Ones(4, 8)),
                    "key has 6 rows but value has 4; key and value must have the same length S");
  CHECK_THROWS_WITH(torch_mha_forward(c, p, Matrix(0, 8), kv, kv),
                    "query has shape (0, 8); it must have at least one row and one column");
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, Matrix(0, 8), Matrix(0, 8)),
                    "key has shape (0, 8); it must have at least one row and one column");
  // An empty value is named as such, not left to the key/value length check.
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, Matrix(0, 8)),
                    "value has shape (0, 8); it must have at least one row and one column");
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, Matrix(6, 0)),
                    "value has shape (6, 0); it must have at least one row and one column");

  Matrix bad = q;
  bad(0, 1) = kNaN;
  CHECK_THROWS_WITH(torch_mha_forward(c, p, bad, kv, kv),
                    "query contains a non-finite value (nan) at [0, 1]; all values must be finite");
  Matrix bad_k = kv;
  bad_k(2, 3) = -kInf;
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, bad_k, kv),
                    "key contains a non-finite value (-inf) at [2, 3]; all values must be finite");
  Matrix bad_v = kv;
  bad_v(5, 7) = kInf;
  CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, bad_v),
                    "value contains a non-finite value (inf) at [5, 7]; all values must be finite");

  TorchMhaConfig sep = c;
  sep.kdim = 5;
  sep.vdim = 7;
  TorchMhaParams sp;
  sp.q_proj_weight = Matrix::Zero(8, 8);
  sp.k_proj_weight = Matrix::Zero(8, 5);
  sp.v_proj_weight = Matrix::Zero(8, 7);
  sp.in_proj_bias = Vector::Zero(24);
  sp.out_proj_weight = Matrix::Zero(8, 8);
  sp.out_proj_bias = Vector::Zero(8);
  CHECK_THROWS_WITH(torch_mha_forward(sep, sp, q, kv, Matrix::Ones(6, 7)),
                    "key has 8 columns but must have kdim (5)");
  CHECK_THROWS_WITH(torch_mha_forward(sep, sp, q, Matrix::Ones(6, 5), kv),
                    "value has 8 columns but must have vdim (7)");
}

TEST_CASE("errors: torch_mha_forward masks", "[errors][torch]") {
  using headwise::torch_mha_forward;
  const TorchMhaConfig c = torch_config();
  const TorchMhaParams p = torch_params();
  const Matrix q = Matrix::Ones(5, 8);   // L = 5
  const Matrix kv = Matrix::Ones(6, 8);  // S = 6

  {
    TorchForwardOptions o;
    o.bool_attn_mask = BoolMatrix::Constant(5, 5, false);
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask has shape (5, 5) but must be (5, 6)");
  }
  {
    TorchForwardOptions o;
    o.float_attn_mask = Matrix::Zero(6, 6);
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask has shape (6, 6) but must be (5, 6)");
  }
  {
    TorchForwardOptions o;
    o.bool_attn_mask = BoolMatrix::Constant(5, 6, false);
    o.float_attn_mask = Matrix::Zero(5, 6);
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "give attn_mask either as booleans or as floats, not both");
  }
  {
    TorchForwardOptions o;
    o.float_attn_mask = Matrix::Zero(5, 6);
    (*o.float_attn_mask)(1, 2) = kNaN;
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask contains nan at [1, 2]; a float mask may hold finite values and "
                      "-inf only");
    (*o.float_attn_mask)(1, 2) = kInf;
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask contains inf at [1, 2]; a float mask may hold finite values and "
                      "-inf only");
    (*o.float_attn_mask)(1, 2) = -kInf;
    CHECK_NOTHROW(torch_mha_forward(c, p, q, kv, kv, o));
    // The scan starts at the first row and the first column.
    (*o.float_attn_mask)(0, 0) = kNaN;
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask contains nan at [0, 0]; a float mask may hold finite values and "
                      "-inf only");
    (*o.float_attn_mask)(0, 0) = 0.0;
    (*o.float_attn_mask)(3, 0) = kInf;
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask contains inf at [3, 0]; a float mask may hold finite values and "
                      "-inf only");
    (*o.float_attn_mask)(3, 0) = 0.0;
    (*o.float_attn_mask)(0, 4) = kInf;
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "attn_mask contains inf at [0, 4]; a float mask may hold finite values and "
                      "-inf only");
  }
  {
    TorchForwardOptions o;
    o.key_padding_mask = BoolVector(5);
    o.key_padding_mask->setConstant(false);
    CHECK_THROWS_WITH(torch_mha_forward(c, p, q, kv, kv, o),
                      "key_padding_mask has length 5 but must have length S (6)");
  }
}

TEST_CASE("errors: allclose tolerances", "[errors][compare]") {
  const Matrix a = Matrix::Zero(2, 2);
  CHECK_THROWS_WITH(headwise::allclose(a, a, -1.0, 1e-8), "rtol (-1) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, 1e-5, kInf),
                    "atol (inf) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, Matrix::Zero(2, 3)),
                    "cannot compare shape (2, 2) with shape (2, 3); the shapes must be equal");
  CHECK_THROWS_WITH(headwise::compare_heads({a, Matrix::Zero(3, 2)}),
                    "cannot compare shape (2, 2) with shape (3, 2); the shapes must be equal");
}

TEST_CASE("errors: size limits of the lesson pipeline", "[errors][multi_head][limits]") {
  using headwise::head_dim;
  using headwise::multi_head_attention;
  CHECK(headwise::kMaxTokens == 2048);
  CHECK(headwise::kMaxDModel == 2048);
  CHECK(head_dim(2048, 2) == 1024);
  CHECK_THROWS_WITH(head_dim(4096, 2), "d_model (4096) must be at most 2048");
  // Checked before anything is allocated or multiplied.
  CHECK_THROWS_WITH(multi_head_attention(Matrix::Ones(2049, 8), valid_weights(), 2),
                    "tokens (2049) must be at most 2048");
  CHECK_THROWS_WITH(multi_head_attention(Matrix::Ones(2, 2050), valid_weights(), 2),
                    "d_model (2050) must be at most 2048");
  CHECK_THROWS_WITH(
      multi_head_attention(Matrix::Ones(5, 8), valid_weights(), std::int64_t{1} << 40),
      "d_model (8) must be divisible by num_heads (1099511627776)");
}

TEST_CASE("errors: validate_lesson_weights and pack_lesson_weights check the weights",
          "[errors][multi_head][torch]") {
  using headwise::pack_lesson_weights;
  using headwise::validate_lesson_weights;
  CHECK_NOTHROW(validate_lesson_weights(valid_weights(), 8));
  CHECK_NOTHROW(validate_lesson_weights(valid_weights_with_bias(), 8));
  CHECK_THROWS_WITH(validate_lesson_weights(valid_weights(), 4),
                    "wq has shape (8, 8) but must be (4, 4)");
  MhaWeights w = valid_weights();
  w.wv(0, 0) = kNaN;
  CHECK_THROWS_WITH(validate_lesson_weights(w, 8),
                    "wv contains a non-finite value (nan) at [0, 0]; all values must be finite");
  CHECK_THROWS_WITH(pack_lesson_weights(w),
                    "wv contains a non-finite value (nan) at [0, 0]; all values must be finite");
  w = valid_weights();
  w.bk = Vector::Zero(8);
  CHECK_THROWS_WITH(pack_lesson_weights(w),
                    "biases must be given all together (bq, bk, bv, bo) or not at all; "
                    "1 of 4 were given");
  w = valid_weights_with_bias();
  w.bo = Vector::Zero(3);
  CHECK_THROWS_WITH(pack_lesson_weights(w), "bo has length 3 but must have length 8");
  MhaWeights empty;
  CHECK_THROWS_WITH(pack_lesson_weights(empty),
                    "wq has shape (0, 0); it must have at least one row and one column");
}

TEST_CASE("errors: size limits of the PyTorch layer", "[errors][torch][limits]") {
  using headwise::kMaxTorchDim;
  using headwise::parameter_table;
  using headwise::torch_mha_forward;
  CHECK(kMaxTorchDim == 16777216);
  TorchMhaConfig c;
  c.embed_dim = kMaxTorchDim;
  c.num_heads = 1;
  // 4 E^2 + 4 E is still exact in a double (the JS number).
  CHECK(parameter_table(c).total == 4 * kMaxTorchDim * kMaxTorchDim + 4 * kMaxTorchDim);
  c.embed_dim = kMaxTorchDim + 1;
  CHECK_THROWS_WITH(parameter_table(c), "embed_dim (16777217) must be at most 16777216");
  c = torch_config();
  c.kdim = kMaxTorchDim + 1;
  CHECK_THROWS_WITH(parameter_table(c), "kdim (16777217) must be at most 16777216");
  c = torch_config();
  c.vdim = std::int64_t{1} << 40;
  CHECK_THROWS_WITH(parameter_table(c), "vdim (1099511627776) must be at most 16777216");

  const Matrix kv = Matrix::Ones(6, 8);
  CHECK_THROWS_WITH(
      torch_mha_forward(torch_config(), torch_params(), Matrix::Ones(2049, 8), kv, kv),
      "query length L (2049) and key length S (6) must each be at most 2048");
  CHECK_THROWS_WITH(torch_mha_forward(torch_config(), torch_params(), Matrix::Ones(3, 8),
                                      Matrix::Ones(2049, 8), Matrix::Ones(2049, 8)),
                    "query length L (3) and key length S (2049) must each be at most 2048");

  // 32 heads x 2048 x 2048 weights exceed kMaxElements.
  TorchMhaConfig wide;
  wide.embed_dim = 32;
  wide.num_heads = 32;
  wide.bias = false;
  TorchMhaParams p;
  p.in_proj_weight = Matrix::Zero(96, 32);
  p.out_proj_weight = Matrix::Zero(32, 32);
  const Matrix big = Matrix::Zero(2048, 32);
  CHECK_THROWS_WITH(torch_mha_forward(wide, p, big, big, big),
                    "num_heads x L x S (134217728) attention weights must be at most 67108864");
}

TEST_CASE("errors: tolerances are shown as NumPy would print them", "[errors][compare]") {
  const Matrix a = Matrix::Zero(1, 1);
  CHECK_THROWS_WITH(headwise::allclose(a, a, -1e-9), "rtol (-1e-09) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, 1e-5, -0.5),
                    "atol (-0.5) must be a finite number >= 0");
  CHECK_THROWS_WITH(headwise::allclose(a, a, kNaN), "rtol (nan) must be a finite number >= 0");
}

// ---- codes, fields and parameters -----------------------------------------------------------

namespace {

// The headwise::Error that f throws (a failed check if it throws none or another type).
template <typename F>
headwise::Error refusal(F&& f) {
  try {
    f();
  } catch (const headwise::Error& e) {
    return e;
  }
  FAIL("no headwise::Error was thrown");
  return headwise::Error("", "", {}, "");
}

std::int64_t int_param(const headwise::Error& e, const std::string& key) {
  const headwise::Error::Value* v = e.param(key);
  REQUIRE(v != nullptr);
  REQUIRE(std::holds_alternative<std::int64_t>(*v));
  return std::get<std::int64_t>(*v);
}

std::string text_param(const headwise::Error& e, const std::string& key) {
  const headwise::Error::Value* v = e.param(key);
  REQUIRE(v != nullptr);
  REQUIRE(std::holds_alternative<std::string>(*v));
  return std::get<std::string>(*v);
}

std::vector<std::string> names_param(const headwise::Error& e, const std::string& key) {
  const headwise::Error::Value* v = e.param(key);
  REQUIRE(v != nullptr);
  REQUIRE(std::holds_alternative<std::vector<std::string>>(*v));
  return std::get<std::vector<std::string>>(*v);
}

headwise::TrainerOptions trainer_options() {
  headwise::TrainerOptions o;
  o.task = "previous-and-first";
  return o;
}

}  // namespace

TEST_CASE("errors: api_field names the JS option", "[errors][codes]") {
  CHECK(headwise::api_field("d_model") == "dModel");
  CHECK(headwise::api_field("num_heads") == "numHeads");
  CHECK(headwise::api_field("in_proj_weight") == "inProjWeight");
  CHECK(headwise::api_field("seed") == "seed");
}

TEST_CASE("errors: the lesson's refusals carry code, field and params", "[errors][codes]") {
  using headwise::validate_sizes;
  headwise::Error e = refusal([] { validate_sizes(0, 8, 2); });
  CHECK(e.code() == "positive");
  CHECK(e.field() == "tokens");
  CHECK(int_param(e, "value") == 0);
  CHECK(std::string(e.what()) == "tokens (0) must be a positive integer");

  e = refusal([] { validate_sizes(5, 8, -2); });
  CHECK(e.code() == "positive");
  CHECK(e.field() == "numHeads");
  CHECK(int_param(e, "value") == -2);

  e = refusal([] { validate_sizes(5, 10, 4); });
  CHECK(e.code() == "divisible");
  CHECK(e.field() == "dModel");
  CHECK(int_param(e, "value") == 10);
  CHECK(int_param(e, "divisor") == 4);
  CHECK(text_param(e, "divisorField") == "numHeads");

  e = refusal([] { validate_sizes(2049, 8, 2); });
  CHECK(e.code() == "atMost");
  CHECK(e.field() == "tokens");
  CHECK(int_param(e, "value") == 2049);
  CHECK(int_param(e, "max") == 2048);

  e = refusal([] { validate_sizes(5, 4096, 2); });
  CHECK(e.code() == "atMost");
  CHECK(e.field() == "dModel");

  e = refusal([] { validate_sizes(2048, 1024, 16); });
  CHECK(e.code() == "memory");
  CHECK(e.field() == "tokens");
  CHECK(int_param(e, "need") == 656);
  CHECK(int_param(e, "max") == 512);
  CHECK(names_param(e, "fields") == std::vector<std::string>{"tokens", "dModel", "numHeads"});

  e = refusal([] { headwise::NumpyRandomState rng(-1); });
  CHECK(e.code() == "integerRange");
  CHECK(e.field() == "seed");
  CHECK(int_param(e, "value") == -1);
  CHECK(int_param(e, "min") == 0);
  CHECK(int_param(e, "max") == 4294967295LL);
  CHECK(std::string(e.what()) == "seed (-1) must be an integer between 0 and 4294967295");
}

TEST_CASE("errors: shape and value checks carry code, field and params", "[errors][codes]") {
  MhaWeights w = valid_weights();
  w.wq = Matrix::Zero(3, 8);
  headwise::Error e = refusal([&] { headwise::multi_head_attention(Matrix::Zero(5, 8), w, 2); });
  CHECK(e.code() == "shape");
  CHECK(e.field() == "wq");
  CHECK(int_param(e, "rows") == 3);
  CHECK(int_param(e, "cols") == 8);
  CHECK(int_param(e, "expectedRows") == 8);
  CHECK(int_param(e, "expectedCols") == 8);

  Matrix x = Matrix::Zero(5, 8);
  x(2, 3) = kNaN;
  e = refusal([&] { headwise::multi_head_attention(x, valid_weights(), 2); });
  CHECK(e.code() == "finite");
  CHECK(e.field() == "x");
  CHECK(text_param(e, "value") == "nan");
  CHECK(int_param(e, "row") == 2);
  CHECK(int_param(e, "col") == 3);

  TorchMhaConfig c = torch_config();
  c.embed_dim = 10;
  c.num_heads = 4;
  e = refusal([&] { headwise::parameter_table(c); });
  CHECK(e.code() == "divisible");
  CHECK(e.field() == "embedDim");
  CHECK(text_param(e, "divisorField") == "numHeads");
}

TEST_CASE("errors: the trainer's settings carry the API's field and their range", "[errors][codes]") {
  using headwise::resolve_trainer_config;
  headwise::TrainerOptions o = trainer_options();
  o.layers = 5;
  headwise::Error e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "range");
  CHECK(e.field() == "layers");
  CHECK(int_param(e, "value") == 5);
  CHECK(int_param(e, "min") == 1);
  CHECK(int_param(e, "max") == headwise::kMaxTrainLayers);
  CHECK(std::string(e.what()) == "layers (5) must be between 1 and 4");

  o = trainer_options();
  o.seed = -3;
  e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "range");
  CHECK(e.field() == "seed");
  CHECK(int_param(e, "value") == -3);
  CHECK(int_param(e, "max") == 4294967295LL);

  o = trainer_options();
  o.vocab = 300;
  e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "range");
  CHECK(e.field() == "vocab");
  CHECK(int_param(e, "value") == 300);
  CHECK(int_param(e, "min") == headwise::kMinTrainVocab);
  CHECK(int_param(e, "max") == headwise::kMaxTrainVocab);

  o = trainer_options();
  o.num_heads = 9;
  e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "range");
  CHECK(e.field() == "numHeads");
  CHECK(int_param(e, "max") == 8);

  o = trainer_options();
  o.d_model = 12;
  o.num_heads = 5;
  e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "divisible");
  CHECK(e.field() == "dModel");

  o = trainer_options();
  o.seq_len = 1000;
  e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "range");
  CHECK(e.field() == "seqLen");

  o = trainer_options();
  o.learning_rate = 2.0;
  e = refusal([&] { resolve_trainer_config(o); });
  CHECK(e.code() == "rangeAbove");
  CHECK(e.field() == "learningRate");
}

TEST_CASE("errors: names outside a list carry the allowed names", "[errors][codes]") {
  headwise::Error e = refusal([] { headwise::find_task("no-such-task"); });
  CHECK(e.code() == "unknownName");
  CHECK(e.field() == "task");
  CHECK(text_param(e, "value") == "no-such-task");
  CHECK(names_param(e, "allowed").size() == headwise::training_tasks().size() + 1);

  e = refusal([] { headwise::relation_task({"previous", "nope"}); });
  CHECK(e.code() == "unknownName");
  CHECK(e.field() == "relations");
  CHECK(text_param(e, "value") == "nope");
  CHECK(names_param(e, "allowed").size() == headwise::training_relations().size());

  e = refusal([] { headwise::relation_task({}); });
  CHECK(e.code() == "count");
  CHECK(e.field() == "relations");
  CHECK(int_param(e, "value") == 0);
  CHECK(int_param(e, "max") == static_cast<std::int64_t>(headwise::kMaxTaskRelations));

  e = refusal([] { headwise::relation_task({"previous", "first", "previous"}); });
  CHECK(e.code() == "duplicate");
  CHECK(text_param(e, "value") == "previous");
  CHECK(int_param(e, "first") == 0);
  CHECK(int_param(e, "second") == 2);
}
