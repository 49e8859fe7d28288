// ember's C++ API: tensors, ops, autograd. `#include <ember/ember.h>` and link ember::ember.
#pragma once

#include "ember/autograd/engine.h"
#include "ember/autograd/function.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/allocator.h"
#include "ember/core/generator.h"
#include "ember/core/parallel.h"
#include "ember/core/shape.h"
#include "ember/core/tensor.h"
#include "ember/data/dataloader.h"
#include "ember/data/dataset.h"
#include "ember/io/state_dict.h"
#include "ember/ops/ops.h"
#include "ember/ops/print.h"
#include "ember/ops/registry.h"
#include "ember/version.h"
