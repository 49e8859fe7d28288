// Every op of ember's C++ API.
#pragma once

#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/indexing.h"
#include "ember/ops/linalg.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/nn_loss.h"
#include "ember/ops/nn_norm.h"
#include "ember/ops/nn_pool.h"
#include "ember/ops/nn_rnn.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/sort.h"
#include "ember/ops/view.h"
