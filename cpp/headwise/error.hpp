// The core's refusal: std::invalid_argument with its English message (what(), for people reading
// a console), and for programs a stable code, the field it concerns (the JS API's camelCase option
// name: "dModel", "numHeads", "layers") and its parameters (the value given, the range, the
// divisor, the allowed names). The codes and their parameters are listed in cpp/api.d.ts.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace headwise {

class Error : public std::invalid_argument {
 public:
  // A parameter's value: an integer, a number, a name or a list of names.
  using Value = std::variant<std::int64_t, double, std::string, std::vector<std::string>>;
  using Params = std::vector<std::pair<std::string, Value>>;

  Error(std::string code, std::string field, Params params, const std::string& message)
      : std::invalid_argument(message),
        code_(std::move(code)),
        field_(std::move(field)),
        params_(std::move(params)) {}

  const std::string& code() const noexcept { return code_; }
  const std::string& field() const noexcept { return field_; }
  const Params& params() const noexcept { return params_; }
  // The parameter named key, or nullptr.
  const Value* param(const std::string& key) const {
    for (const auto& p : params_)
      if (p.first == key) return &p.second;
    return nullptr;
  }

 private:
  std::string code_;
  std::string field_;
  Params params_;
};

// An integer parameter from any integer type (Eigen's Index is int in WASM, long natively).
inline Error::Value integer(std::int64_t v) { return Error::Value(std::in_place_index<0>, v); }

// The API's option name for one of the core's names: "d_model" -> "dModel",
// "num_heads" -> "numHeads", "seed" -> "seed".
inline std::string api_field(const std::string& core_name) {
  std::string out;
  bool upper = false;
  for (char c : core_name) {
    if (c == '_') {
      upper = true;
    } else {
      out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
      upper = false;
    }
  }
  return out;
}

}  // namespace headwise
