// ember::nn: Module, the layers, containers, losses and init (the C++ counterpart of torch.nn).
#pragma once

#include "ember/nn/activation.h"
#include "ember/nn/attention.h"
#include "ember/nn/container.h"
#include "ember/nn/conv.h"
#include "ember/nn/dropout.h"
#include "ember/nn/embedding.h"
#include "ember/nn/init.h"
#include "ember/nn/linear.h"
#include "ember/nn/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/normalization.h"
#include "ember/nn/padding.h"
#include "ember/nn/pooling.h"
#include "ember/nn/rnn.h"
#include "ember/nn/transformer.h"
#include "ember/nn/upsampling.h"
