// JSON of numbers for the tools in tests/train, which print one JSON line per run.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "headwise/types.hpp"

namespace headwise_tools {

// [a,b,...] with 6 significant digits.
inline std::string json_list(const std::vector<double>& v) {
  std::ostringstream out;
  out.precision(6);
  out << "[";
  for (std::size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  out << "]";
  return out.str();
}

// [[row 0],[row 1],...]
inline std::string json_rows(const headwise::Matrix& m) {
  std::string out = "[";
  for (headwise::Index i = 0; i < m.rows(); ++i) {
    std::vector<double> row;
    for (headwise::Index j = 0; j < m.cols(); ++j) row.push_back(m(i, j));
    out += (i ? "," : "") + json_list(row);
  }
  return out + "]";
}

}  // namespace headwise_tools
