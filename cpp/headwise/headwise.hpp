// The whole core in one include.
#pragma once

#include "headwise/attention.hpp"
#include "headwise/compare.hpp"
#include "headwise/lesson.hpp"
#include "headwise/multi_head.hpp"
#include "headwise/numpy_random.hpp"
#include "headwise/torch_layout.hpp"
#include "headwise/train_tasks.hpp"
#include "headwise/trainer.hpp"
#include "headwise/types.hpp"
