// The task argument of the tools in cpp/tools: a preset's name ("previous-and-first") or
// "relations=" and catalogue names separated by commas ("relations=previous,first,two-back").
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "headwise/trainer.hpp"

namespace headwise_tools {

inline void set_task(headwise::TrainerOptions& o, const std::string& arg) {
  const std::string prefix = "relations=";
  if (arg.compare(0, prefix.size(), prefix) != 0) {
    o.task = arg;
    return;
  }
  std::vector<std::string> names;
  std::stringstream list(arg.substr(prefix.size()));
  for (std::string item; std::getline(list, item, ',');) names.push_back(item);
  o.relations = names;
}

}  // namespace headwise_tools
