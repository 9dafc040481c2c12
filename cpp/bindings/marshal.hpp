// Conversions between JS values and the core's types, for the adapters (cpp/bindings/*.cpp).
//
// The JS wrapper (cpp/api.js) validates option types and flattens nested arrays into
// {data: Float64Array, rows, cols}; these functions copy them into Eigen matrices. Every result
// goes back out as a tensor, {data: a Float64Array copy, shape}: shape [n] for a vector,
// [rows, cols] for a matrix, [depth, rows, cols] for a stack (nothing for JS to .delete()); the
// wrapper reads each field's kind from its shape alone. Every adapter runs in guarded(), which
// turns the core's exceptions into {error: message, code, field, params} for the wrapper to
// rethrow as a JS Error: in Emscripten 3.1.6 a C++ exception would reach JS as a bare number.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "headwise/error.hpp"
#include "headwise/types.hpp"

namespace headwise_js {

using emscripten::val;
using headwise::BoolMatrix;
using headwise::BoolVector;
using headwise::Index;
using headwise::IntMatrix;
using headwise::Matrix;
using headwise::Vector;

// ---- JS -> C++ (values the wrapper has checked) ------------------------------------------------

// Whether obj has key, set to something other than undefined or null.
bool has(const val& obj, const char* key);
double get_number(const val& obj, const char* key);
bool get_bool(const val& obj, const char* key);
// Integers arrive as JS numbers checked to be safe integers; the core range-checks them before
// narrowing to its (32-bit) Index.
std::int64_t get_int(const val& obj, const char* key);
// {data: Float64Array, rows, cols} -> Matrix (one bulk copy into the heap); -> Vector of rows.
Matrix get_matrix(const val& m);
Vector get_vector(const val& m);
// {data: Float64Array of integers, rows, cols} -> IntMatrix
IntMatrix get_int_matrix(const val& m);
// Booleans arrive as a Uint8Array (0/1) with rows/cols.
BoolMatrix get_bool_matrix(const val& m);
BoolVector get_bool_vector(const val& m);
// A Uint8Array -> its bytes (one bulk copy).
std::vector<std::uint8_t> get_bytes(const val& bytes);
// kdim / vdim: absent means embed_dim (0 in the core's config); a given 0 is refused here.
std::int64_t optional_dim(const val& obj, const char* key);
std::optional<Matrix> opt_matrix(const val& obj, const char* key);
std::optional<Vector> opt_vector(const val& obj, const char* key);
// n doubles at dst from the array-like data of m (n checked against its length).
void read_data(const val& m, double* dst, int n);

// ---- C++ -> JS ---------------------------------------------------------------------------------

// {data: a Float64Array copy of the numbers at data, shape} (as many numbers as shape holds).
val tensor_out(const double* data, const std::vector<Index>& shape);
// {data: a new Float64Array of zeros, shape}, for fill_stack or set_data to write.
val tensor_new(const std::vector<Index>& shape);
val matrix_out(const Matrix& m);  // shape [rows, cols]
val vector_out(const Vector& v);  // shape [n]
// A stack of equally shaped matrices -> shape [depth, rows, cols].
val stack_out(const std::vector<Matrix>& ms);
// Each matrix of ms into the tensor's data, one after another.
void fill_stack(const val& tensor, const std::vector<Matrix>& ms);
// n doubles at p into the data of a tensor, from index offset.
void set_data(const val& tensor, const double* p, int n, int offset);
val strings_out(const std::vector<std::string>& items);
val numbers_out(const std::vector<double>& items);
// {error: message, code, field (null when none), params: {name: number, string or string[]}}.
val error_out(const std::string& message, const std::string& code, const std::string& field = "",
              const headwise::Error::Params& params = {});

// body(), or {error, code, field, params} for the core's exceptions (headwise::Error, error.hpp).
template <typename F>
val guarded(F&& body) {
  try {
    return body();
  } catch (const headwise::Error& e) {
    return error_out(e.what(), e.code(), e.field(), e.params());
  } catch (const std::invalid_argument& e) {
    return error_out(e.what(), "invalid");
  } catch (const std::bad_alloc&) {
    return error_out("out of memory: the requested sizes are too large for this device",
                     "outOfMemory");
  } catch (const std::exception& e) {
    return error_out(std::string("internal error: ") + e.what(), "internal");
  }
}

}  // namespace headwise_js
