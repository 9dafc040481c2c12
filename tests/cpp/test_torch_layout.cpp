// nn.MultiheadAttention's parameter layout and forward (parameter_tables.json, torch_mha.json).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "headwise/attention.hpp"
#include "headwise/lesson.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/torch_layout.hpp"

using headwise::BoolMatrix;
using headwise::Index;
using headwise::Matrix;
using headwise::MhaResult;
using headwise::MhaWeights;
using headwise::pack_lesson_weights;
using headwise::parameter_table;
using headwise::ParameterTable;
using headwise::torch_mha_forward;
using headwise::TorchForwardOptions;
using headwise::TorchForwardResult;
using headwise::TorchMhaConfig;
using headwise::TorchMhaParams;
using headwise::unpack_lesson_weights;
using headwise::Vector;
using headwise::test::expect_equal;
using headwise::test::expect_near;
using headwise::test::fixture_cases;
using headwise::test::Json;
using headwise::test::shape_of;
using headwise::test::to_bool_matrix;
using headwise::test::to_bool_vector;
using headwise::test::to_matrices;
using headwise::test::to_matrix;
using headwise::test::to_vector;

namespace {

constexpr double kTol = 1e-12;

TorchMhaConfig config_from(const Json& c) {
  TorchMhaConfig cfg;
  cfg.embed_dim = c.at("embed_dim").get<Index>();
  cfg.num_heads = c.at("num_heads").get<Index>();
  cfg.bias = c.at("bias").get<bool>();
  cfg.add_bias_kv = c.at("add_bias_kv").get<bool>();
  // null (not given) means "embed_dim", which the core spells 0.
  cfg.kdim = c.at("kdim").is_null() ? 0 : c.at("kdim").get<Index>();
  cfg.vdim = c.at("vdim").is_null() ? 0 : c.at("vdim").get<Index>();
  return cfg;
}

// named_parameters() of the fixture -> TorchMhaParams.
TorchMhaParams params_from(const Json& parameters) {
  TorchMhaParams p;
  for (const auto& [name, values] : parameters.items()) {
    if (name == "in_proj_weight") {
      p.in_proj_weight = to_matrix(values);
    } else if (name == "q_proj_weight") {
      p.q_proj_weight = to_matrix(values);
    } else if (name == "k_proj_weight") {
      p.k_proj_weight = to_matrix(values);
    } else if (name == "v_proj_weight") {
      p.v_proj_weight = to_matrix(values);
    } else if (name == "in_proj_bias") {
      p.in_proj_bias = to_vector(values);
    } else if (name == "bias_k") {
      p.bias_k = to_vector(values);  // stored (1, 1, E)
    } else if (name == "bias_v") {
      p.bias_v = to_vector(values);
    } else if (name == "out_proj.weight") {
      p.out_proj_weight = to_matrix(values);
    } else if (name == "out_proj.bias") {
      p.out_proj_bias = to_vector(values);
    } else {
      FAIL("unknown parameter in fixture: " << name);
    }
  }
  return p;
}

TorchForwardOptions options_from(const Json& c) {
  TorchForwardOptions o;
  const Json& mask = c.at("attn_mask");
  if (!mask.is_null()) {
    if (mask.at("kind") == "bool") {
      o.bool_attn_mask = to_bool_matrix(mask.at("values"));
    } else {
      o.float_attn_mask = to_matrix(mask.at("values"));
    }
  }
  if (!c.at("key_padding_mask").is_null()) {
    o.key_padding_mask = to_bool_vector(c.at("key_padding_mask"));
  }
  o.need_weights = c.at("need_weights").get<bool>();
  o.average_attn_weights = c.at("average_attn_weights").get<bool>();
  return o;
}

const Json& torch_case(const std::string& name) {
  for (const Json& c : fixture_cases("torch_mha.json")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("torch_mha.json has no case " + name);
}

MhaWeights lesson_weights_from(const Json& lesson) {
  MhaWeights w;
  w.wq = to_matrix(lesson.at("wq"));
  w.wk = to_matrix(lesson.at("wk"));
  w.wv = to_matrix(lesson.at("wv"));
  w.wo = to_matrix(lesson.at("wo"));
  return w;
}

}  // namespace

TEST_CASE("parameter_table matches named_parameters() names, shapes, order and total",
          "[torch][parameters][fixture]") {
  const Json& cases = fixture_cases("parameter_tables.json");
  REQUIRE(cases.size() >= 19);
  for (const Json& c : cases) {
    const TorchMhaConfig cfg = config_from(c);
    DYNAMIC_SECTION("embed_dim " << cfg.embed_dim << " heads " << cfg.num_heads << " bias "
                                 << cfg.bias << " add_bias_kv " << cfg.add_bias_kv << " kdim "
                                 << cfg.kdim << " vdim " << cfg.vdim) {
      const ParameterTable t = parameter_table(cfg);
      CHECK(t.total == c.at("total").get<std::int64_t>());
      const Json& tensors = c.at("tensors");
      REQUIRE(t.tensors.size() == tensors.size());
      for (std::size_t i = 0; i < tensors.size(); ++i) {
        CAPTURE(i);
        CHECK(t.tensors[i].name == tensors[i].at("name").get<std::string>());
        CHECK(t.tensors[i].shape == tensors[i].at("shape").get<std::vector<std::int64_t>>());
        CHECK(t.tensors[i].numel == tensors[i].at("numel").get<std::int64_t>());
      }
    }
  }
}

TEST_CASE("parameter_table: the lesson's 256 (no bias) and 288 (bias) at d_model 8",
          "[torch][parameters]") {
  TorchMhaConfig cfg;
  cfg.embed_dim = 8;
  cfg.num_heads = 2;
  cfg.bias = false;
  CHECK(parameter_table(cfg).total == 256);
  cfg.bias = true;
  CHECK(parameter_table(cfg).total == 288);
  cfg.embed_dim = 768;
  cfg.num_heads = 12;
  CHECK(parameter_table(cfg).total == 4 * 768 * 768 + 4 * 768);
}

TEST_CASE("torch_mha_forward matches nn.MultiheadAttention for every torch_mha case",
          "[torch][forward][fixture]") {
  const Json& cases = fixture_cases("torch_mha.json");
  REQUIRE(cases.size() >= 14);
  for (const Json& c : cases) {
    DYNAMIC_SECTION(c.at("name").get<std::string>()) {
      const TorchMhaConfig cfg = config_from(c);
      const TorchMhaParams params = params_from(c.at("parameters"));
      const TorchForwardOptions opts = options_from(c);
      const TorchForwardResult r =
          torch_mha_forward(cfg, params, to_matrix(c.at("query")), to_matrix(c.at("key")),
                            to_matrix(c.at("value")), opts);
      expect_near(r.attn_output, to_matrix(c.at("attn_output")), kTol, "attn_output");
      const Json& weights = c.at("attn_weights");
      if (weights.is_null()) {
        CHECK(r.attn_weights.empty());
      } else if (shape_of(weights).size() == 2) {
        REQUIRE(opts.average_attn_weights);
        REQUIRE(r.attn_weights.size() == 1);
        expect_near(r.attn_weights[0], to_matrix(weights), kTol, "attn_weights (averaged)");
      } else {
        REQUIRE_FALSE(opts.average_attn_weights);
        expect_near(r.attn_weights, to_matrices(weights), kTol, "attn_weights (per head)");
      }
    }
  }
}

TEST_CASE("torch_mha_forward: a fully masked query row is NaN exactly where PyTorch's is",
          "[torch][forward][fixture]") {
  const Json& c = torch_case("fully_masked_query_row");
  const TorchForwardResult r =
      torch_mha_forward(config_from(c), params_from(c.at("parameters")), to_matrix(c.at("query")),
                        to_matrix(c.at("key")), to_matrix(c.at("value")), options_from(c));
  REQUIRE(r.attn_output.rows() == 5);
  for (Index i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(r.attn_output.row(i).array().isNaN().all() == (i == 2));
    CHECK(r.attn_output.row(i).array().isNaN().any() == (i == 2));
  }
  for (const Matrix& w : r.attn_weights) CHECK(w.row(2).array().isNaN().all());
}

TEST_CASE("pack_lesson_weights / unpack_lesson_weights round-trip exactly", "[torch][layout]") {
  headwise::SeedExperimentConfig cfg;
  cfg.bias = true;
  const MhaWeights w = headwise::seed_experiment(cfg).weights;
  const TorchMhaParams p = pack_lesson_weights(w);
  REQUIRE(p.in_proj_weight.has_value());
  REQUIRE(p.in_proj_weight->rows() == 24);
  REQUIRE(p.in_proj_weight->cols() == 8);
  expect_equal(Matrix(p.in_proj_weight->topRows(8)), Matrix(w.wq.transpose()), "rows 0-7 = Wq^T");
  expect_equal(Matrix(p.in_proj_weight->middleRows(8, 8)), Matrix(w.wk.transpose()),
               "rows 8-15 = Wk^T");
  expect_equal(Matrix(p.in_proj_weight->bottomRows(8)), Matrix(w.wv.transpose()),
               "rows 16-23 = Wv^T");
  expect_equal(p.out_proj_weight, Matrix(w.wo.transpose()), "out_proj.weight = Wo^T");
  REQUIRE(p.in_proj_bias.has_value());
  expect_equal(Vector(p.in_proj_bias->segment(0, 8)), *w.bq, "in_proj_bias[0:8] = bq");
  expect_equal(Vector(p.in_proj_bias->segment(8, 8)), *w.bk, "in_proj_bias[8:16] = bk");
  expect_equal(Vector(p.in_proj_bias->segment(16, 8)), *w.bv, "in_proj_bias[16:24] = bv");
  REQUIRE(p.out_proj_bias.has_value());
  expect_equal(*p.out_proj_bias, *w.bo, "out_proj.bias = bo");
  CHECK_FALSE(p.q_proj_weight.has_value());
  CHECK_FALSE(p.bias_k.has_value());

  const MhaWeights back = unpack_lesson_weights(p);
  expect_equal(back.wq, w.wq, "wq");
  expect_equal(back.wk, w.wk, "wk");
  expect_equal(back.wv, w.wv, "wv");
  expect_equal(back.wo, w.wo, "wo");
  REQUIRE(back.bq.has_value());
  expect_equal(*back.bq, *w.bq, "bq");
  expect_equal(*back.bk, *w.bk, "bk");
  expect_equal(*back.bv, *w.bv, "bv");
  expect_equal(*back.bo, *w.bo, "bo");

  const TorchMhaParams no_bias = pack_lesson_weights(headwise::seed_experiment({}).weights);
  CHECK_FALSE(no_bias.in_proj_bias.has_value());
  CHECK_FALSE(no_bias.out_proj_bias.has_value());
  CHECK_FALSE(unpack_lesson_weights(no_bias).bq.has_value());
}

TEST_CASE("lesson_crosscheck: the manual pipeline on seed-7 weights equals PyTorch's forward",
          "[torch][lesson][fixture]") {
  const Json& c = torch_case("lesson_crosscheck");
  const MhaWeights fixture_w = lesson_weights_from(c.at("lesson"));
  const headwise::SeedExperiment e = headwise::seed_experiment({});  // seed 7, (5, 8, 2)
  expect_equal(e.weights.wq, fixture_w.wq, "Wq");
  expect_equal(e.weights.wk, fixture_w.wk, "Wk");
  expect_equal(e.weights.wv, fixture_w.wv, "Wv");
  expect_equal(e.weights.wo, fixture_w.wo, "Wo");
  expect_equal(e.x, to_matrix(c.at("query")), "X");

  // Packing the lesson's weights gives exactly the tensors copied into PyTorch.
  const TorchMhaParams packed = pack_lesson_weights(e.weights);
  expect_equal(*packed.in_proj_weight, to_matrix(c.at("parameters").at("in_proj_weight")),
               "in_proj_weight");
  expect_equal(packed.out_proj_weight, to_matrix(c.at("parameters").at("out_proj.weight")),
               "out_proj.weight");

  TorchMhaConfig cfg;
  cfg.embed_dim = 8;
  cfg.num_heads = 2;
  cfg.bias = false;
  TorchForwardOptions opts;
  opts.average_attn_weights = false;
  const TorchForwardResult t = torch_mha_forward(cfg, packed, e.x, e.x, e.x, opts);

  // Manual == torch (both computed here), manual == torch fixture, torch == torch fixture.
  expect_near(e.result.output, t.attn_output, kTol, "manual output vs torch_mha_forward");
  expect_near(e.result.head_weights, t.attn_weights, kTol, "manual weights vs torch_mha_forward");
  expect_near(e.result.output, to_matrix(c.at("attn_output")), kTol, "manual vs PyTorch output");
  expect_near(e.result.head_weights, to_matrices(c.at("attn_weights")), kTol,
              "manual vs PyTorch per-head weights");
  expect_near(t.attn_output, to_matrix(c.at("attn_output")), kTol, "torch_mha_forward vs PyTorch");
  CHECK(c.at("max_abs_diff_output").get<double>() <= kTol);
}

TEST_CASE("torch_mha_forward equals the lesson pipeline with biases and with a causal mask",
          "[torch][lesson]") {
  headwise::SeedExperimentConfig cfg;
  cfg.bias = true;
  cfg.num_heads = 4;
  const headwise::SeedExperiment e = headwise::seed_experiment(cfg);
  TorchMhaConfig tc;
  tc.embed_dim = 8;
  tc.num_heads = 4;
  tc.bias = true;
  TorchForwardOptions opts;
  opts.average_attn_weights = false;
  const TorchMhaParams p = pack_lesson_weights(e.weights);
  const TorchForwardResult t = torch_mha_forward(tc, p, e.x, e.x, e.x, opts);
  expect_near(t.attn_output, e.result.output, kTol, "bias: output");
  expect_near(t.attn_weights, e.result.head_weights, kTol, "bias: weights");

  // Causal: a boolean upper-triangle mask in PyTorch == causal=true in the pipeline.
  const MhaResult causal = headwise::multi_head_attention(e.x, e.weights, 4, /*causal=*/true);
  BoolMatrix upper(5, 5);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 5; ++j) upper(i, j) = j > i;
  opts.bool_attn_mask = upper;
  const TorchForwardResult tc_out = torch_mha_forward(tc, p, e.x, e.x, e.x, opts);
  expect_near(tc_out.attn_output, causal.output, kTol, "causal: output");
  expect_near(tc_out.attn_weights, causal.head_weights, kTol, "causal: weights");

  // Averaged weights are the mean of the per-head weights.
  opts.average_attn_weights = true;
  const TorchForwardResult avg = torch_mha_forward(tc, p, e.x, e.x, e.x, opts);
  REQUIRE(avg.attn_weights.size() == 1);
  Matrix mean = Matrix::Zero(5, 5);
  for (const Matrix& w : causal.head_weights) mean += w;
  mean /= 4.0;
  expect_near(avg.attn_weights[0], mean, 1e-15, "averaged weights");
  expect_equal(avg.attn_output, tc_out.attn_output, "averaging does not change attn_output");

  opts.need_weights = false;
  const TorchForwardResult none = torch_mha_forward(tc, p, e.x, e.x, e.x, opts);
  CHECK(none.attn_weights.empty());
  expect_equal(none.attn_output, tc_out.attn_output, "need_weights=false keeps attn_output");
}

TEST_CASE("torch_mha_forward: the bool and the additive form of a mask agree", "[torch][forward]") {
  const Json& c = torch_case("bool_attn_mask_causal");
  TorchForwardOptions as_bool = options_from(c);
  REQUIRE(as_bool.bool_attn_mask.has_value());
  TorchForwardOptions as_float = as_bool;
  as_float.float_attn_mask = headwise::bool_mask_to_additive(*as_bool.bool_attn_mask);
  as_float.bool_attn_mask.reset();
  const TorchMhaConfig cfg = config_from(c);
  const TorchMhaParams p = params_from(c.at("parameters"));
  const Matrix q = to_matrix(c.at("query"));
  const Matrix k = to_matrix(c.at("key"));
  const Matrix v = to_matrix(c.at("value"));
  const TorchForwardResult a = torch_mha_forward(cfg, p, q, k, v, as_bool);
  const TorchForwardResult b = torch_mha_forward(cfg, p, q, k, v, as_float);
  expect_equal(a.attn_output, b.attn_output, "attn_output");
  expect_equal(a.attn_weights, b.attn_weights, "attn_weights");
}
