// Conversions between JS values and the core's types (see marshal.hpp).
//
// Matrices cross the boundary in one call each way (EM_JS below): a matrix read or written
// through emscripten::val costs about ten calls between WASM and JS (the object, each key
// decoded from UTF-8, the Float64Array constructor looked up by name), and at the lesson's
// size those calls, not the arithmetic, were most of a module call's time.
#include "marshal.hpp"

#include <emscripten/emscripten.h>

using emscripten::EM_VAL;

// m.rows and m.cols into shape[0..1] (numbers the wrapper has checked).
EM_JS(void, hw_read_shape, (EM_VAL m, double* shape), {
  var o = Emval.toValue(m);
  HEAPF64[shape >> 3] = o.rows;
  HEAPF64[(shape >> 3) + 1] = o.cols;
});

// m.data (an array-like of exactly n numbers: cpp/api.js has checked) into the heap at dst.
EM_JS(void, hw_read_data, (EM_VAL m, double* dst, int n), {
  var d = Emval.toValue(m).data;
  if (d.length !== n) throw new RangeError('data has ' + d.length + ' entries, not ' + n);
  HEAPF64.set(d, dst >> 3);
});

// {data: a Float64Array copy of n doubles at p (or n zeros where copy is 0), shape: the rank
// numbers at dims}: the one form of every result.
EM_JS(EM_VAL, hw_tensor, (const double* p, int n, const double* dims, int rank, int copy), {
  var shape = Array.from(HEAPF64.subarray(dims >> 3, (dims >> 3) + rank));
  var data = copy ? HEAPF64.slice(p >> 3, (p >> 3) + n) : new Float64Array(n);
  return Emval.toHandle({data: data, shape: shape});
});

// n doubles at p into a tensor's data, from index offset: each matrix of a stack is copied once,
// straight into the JS array, with no flat copy in the heap first.
EM_JS(void, hw_tensor_set, (EM_VAL tensor, const double* p, int n, int offset), {
  Emval.toValue(tensor).data.set(HEAPF64.subarray(p >> 3, (p >> 3) + n), offset);
});

// The bytes of a Uint8Array (of exactly n bytes: cpp/api.js has checked) into the heap at dst.
EM_JS(void, hw_read_bytes, (EM_VAL bytes, unsigned char* dst, int n), {
  var b = Emval.toValue(bytes);
  if (b.length !== n) throw new RangeError('bytes has ' + b.length + ' entries, not ' + n);
  HEAPU8.set(b, dst);
});

// obj[key] as a number (the wrapper passes numbers and booleans it has checked), and whether obj
// has key, set to something other than undefined or null: one call each.
EM_JS(double, hw_number, (EM_VAL obj, const char* key), {
  return +Emval.toValue(obj)[UTF8ToString(key)];
});

EM_JS(int, hw_has, (EM_VAL obj, const char* key), {
  var o = Emval.toValue(obj);
  var k = UTF8ToString(key);
  return Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined && o[k] !== null ? 1 : 0;
});

namespace headwise_js {

bool has(const val& obj, const char* key) { return hw_has(obj.as_handle(), key) != 0; }

double get_number(const val& obj, const char* key) { return hw_number(obj.as_handle(), key); }

std::vector<std::uint8_t> get_bytes(const val& bytes) {
  std::vector<std::uint8_t> out(bytes["length"].as<std::size_t>());
  hw_read_bytes(bytes.as_handle(), out.data(), static_cast<int>(out.size()));
  return out;
}

bool get_bool(const val& obj, const char* key) { return get_number(obj, key) != 0; }

std::int64_t get_int(const val& obj, const char* key) {
  return static_cast<std::int64_t>(get_number(obj, key));
}

void read_data(const val& m, double* dst, int n) { hw_read_data(m.as_handle(), dst, n); }

Matrix get_matrix(const val& m) {
  double shape[2];
  hw_read_shape(m.as_handle(), shape);
  Matrix out(static_cast<Index>(shape[0]), static_cast<Index>(shape[1]));
  if (out.size() > 0) hw_read_data(m.as_handle(), out.data(), static_cast<int>(out.size()));
  return out;
}

Vector get_vector(const val& m) {
  double shape[2];
  hw_read_shape(m.as_handle(), shape);
  Vector out(static_cast<Index>(shape[0]));
  if (out.size() > 0) hw_read_data(m.as_handle(), out.data(), static_cast<int>(out.size()));
  return out;
}

IntMatrix get_int_matrix(const val& m) { return get_matrix(m).cast<std::int64_t>(); }

BoolMatrix get_bool_matrix(const val& m) {
  const Index rows = static_cast<Index>(get_number(m, "rows"));
  const Index cols = static_cast<Index>(get_number(m, "cols"));
  std::vector<unsigned char> bytes(static_cast<std::size_t>(rows * cols));
  if (!bytes.empty()) {
    val view(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    view.call<void>("set", m["data"]);
  }
  BoolMatrix out(rows, cols);
  for (Index i = 0; i < out.size(); ++i) out.data()[i] = bytes[static_cast<std::size_t>(i)] != 0;
  return out;
}

BoolVector get_bool_vector(const val& m) {
  BoolMatrix b = get_bool_matrix(m);
  return Eigen::Map<const BoolVector>(b.data(), b.size());
}

// kdim / vdim: absent means embed_dim (0 in the core's config). A given 0 would read as
// absent there, so it is refused here; every other value is the core's to check.
std::int64_t optional_dim(const val& obj, const char* key) {
  if (!has(obj, key)) return 0;
  const std::int64_t d = get_int(obj, key);
  if (d == 0) {
    throw headwise::Error("positive", key, {{"value", headwise::integer(0)}},
                          std::string(key) + " (0) must be a positive integer");
  }
  return d;
}

std::optional<Matrix> opt_matrix(const val& obj, const char* key) {
  if (!has(obj, key)) return std::nullopt;
  return get_matrix(obj[key]);
}

std::optional<Vector> opt_vector(const val& obj, const char* key) {
  if (!has(obj, key)) return std::nullopt;
  return get_vector(obj[key]);
}

namespace {

val tensor_of(const double* data, const std::vector<Index>& shape, bool copy) {
  std::vector<double> dims(shape.begin(), shape.end());
  Index n = 1;
  for (Index d : shape) n *= d;
  return val::take_ownership(hw_tensor(data, static_cast<int>(n), dims.data(),
                                       static_cast<int>(dims.size()), copy ? 1 : 0));
}

}  // namespace

val tensor_out(const double* data, const std::vector<Index>& shape) {
  return tensor_of(data, shape, true);
}

val tensor_new(const std::vector<Index>& shape) { return tensor_of(nullptr, shape, false); }

val matrix_out(const Matrix& m) { return tensor_out(m.data(), {m.rows(), m.cols()}); }

val vector_out(const Vector& v) { return tensor_out(v.data(), {v.size()}); }

void set_data(const val& tensor, const double* p, int n, int offset) {
  hw_tensor_set(tensor.as_handle(), p, n, offset);
}

void fill_stack(const val& tensor, const std::vector<Matrix>& ms) {
  for (std::size_t h = 0; h < ms.size(); ++h) {
    const Index size = ms[h].size();
    hw_tensor_set(tensor.as_handle(), ms[h].data(), static_cast<int>(size),
                  static_cast<int>(static_cast<Index>(h) * size));
  }
}

val stack_out(const std::vector<Matrix>& ms) {
  const Index rows = ms.empty() ? 0 : ms[0].rows();
  const Index cols = ms.empty() ? 0 : ms[0].cols();
  val out = tensor_new({static_cast<Index>(ms.size()), rows, cols});
  fill_stack(out, ms);
  return out;
}

val error_out(const std::string& message, const std::string& code, const std::string& field,
              const headwise::Error::Params& params) {
  val out = val::object();
  out.set("error", message);
  out.set("code", code);
  out.set("field", field.empty() ? val::null() : val(field));
  val p = val::object();
  for (const auto& [key, value] : params) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      p.set(key, static_cast<double>(*i));
    } else if (const auto* x = std::get_if<double>(&value)) {
      p.set(key, *x);
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      p.set(key, *s);
    } else {
      p.set(key, strings_out(std::get<std::vector<std::string>>(value)));
    }
  }
  out.set("params", p);
  return out;
}


val strings_out(const std::vector<std::string>& items) {
  val out = val::array();
  for (const std::string& s : items) out.call<void>("push", s);
  return out;
}

val numbers_out(const std::vector<double>& items) {
  val out = val::array();
  for (double x : items) out.call<void>("push", x);
  return out;
}

}  // namespace headwise_js
