// Recurrent cells and sequences (RNN, LSTM, GRU): argument checks, the time loops over the kernel
// slots of kernels_nn_rnn.h, and their backward (docs/design/nn_rnn.md). Attention is in
// nn_attention.cpp.
#include "ember/ops/nn_rnn.h"

#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels_nn_rnn.h"
#include "ember/ops/nn_rnn_util.h"
#include "ember/ops/ops.h"
#include "ember/ops/registry.h"

namespace ember {
namespace {

const OpInfo kRnnOps[] = {
    {"rnn_tanh_cell", OpKind::Other, kRnnTypes, true},
    {"rnn_relu_cell", OpKind::Other, kRnnTypes, true},
    {"lstm_cell", OpKind::Other, kRnnTypes, true},
    {"gru_cell", OpKind::Other, kRnnTypes, true},
    {"rnn_tanh", OpKind::Other, kRnnTypes, true},
    {"rnn_relu", OpKind::Other, kRnnTypes, true},
    {"lstm", OpKind::Other, kRnnTypes, true},
    {"gru", OpKind::Other, kRnnTypes, true},
};

const char* gate_count_name(RnnMode m) {
  return m == RnnMode::Lstm  ? "4 * hidden_size"
         : m == RnnMode::Gru ? "3 * hidden_size"
                             : "hidden_size";
}

// ---- cells
// ---------------------------------------------------------------------------------------

void check_cell(RnnMode mode,
                const char* name,
                const Tensor& input,
                const Tensor& hx,
                const Tensor& cx,
                const Tensor& w_ih,
                const Tensor& w_hh,
                const std::optional<Tensor>& b_ih,
                const std::optional<Tensor>& b_hh) {
  rnn_detail::check_floating(input, name);
  EMBER_CHECK(input.dim() == 2, "[", name, "] Expected 2D input (batch x feature), but got ",
              input.dim(), "D input");
  EMBER_CHECK(hx.dim() == 2, "[", name, "] Expected 2D hidden0 (batch x hidden_size), but got ",
              hx.dim(), "D tensor");
  EMBER_CHECK(w_ih.dim() == 2 && w_hh.dim() == 2, "[", name,
              "] expected 2-D weights w_ih and w_hh, got ", w_ih.dim(), "-D and ", w_hh.dim(),
              "-D");
  const int64_t H = w_hh.size(1), G = rnn_gates(mode);
  EMBER_CHECK(w_ih.size(0) == G * H, "[", name, "] weight_ih first dim must be ",
              gate_count_name(mode), " = ", G * H, ", but got ", w_ih.size(0));
  EMBER_CHECK(w_hh.size(0) == G * H, "[", name, "] weight_hh must have shape (", G * H, ", ", H,
              "), got ", w_hh.sizes());
  EMBER_CHECK(input.size(1) == w_ih.size(1), "[", name, "] input has inconsistent input_size: got ",
              input.size(1), ", expected ", w_ih.size(1));
  EMBER_CHECK(input.size(0) == hx.size(0), "[", name, "] Input batch size ", input.size(0),
              " doesn't match hidden0 batch size ", hx.size(0));
  EMBER_CHECK(hx.size(1) == H, "[", name, "] hidden0 has inconsistent hidden_size: got ",
              hx.size(1), ", expected ", H);
  if (cx.defined()) {
    EMBER_CHECK(cx.dim() == 2 && cx.size(0) == hx.size(0) && cx.size(1) == H, "[", name,
                "] expected hidden1 of shape (", hx.size(0), ", ", H, "), got ", cx.sizes());
  }
  const Tensor* all[] = {&hx, &cx, &w_ih, &w_hh};
  for (const Tensor* t : all) {
    if (t->defined()) rnn_detail::check_like(*t, input, name);
  }
  for (const auto* b : {&b_ih, &b_hh}) {
    if (!*b) continue;
    rnn_detail::check_like(**b, input, name);
    EMBER_CHECK((*b)->dim() == 1 && (*b)->size(0) == G * H, "[", name,
                "] expected biases of shape (", G * H, "), got ", (*b)->sizes());
  }
}

Tensor gates_of(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
  return b ? addmm(*b, x, w.t()) : mm(x, w.t());
}

// The gradient of one fused step written with public ops, so that it is differentiable again
// (used when backward runs with create_graph). third is cx (LSTM) or hx (GRU).
TensorList composite_cell_backward(RnnMode mode,
                                   const Tensor& gh,
                                   const Tensor& gc,
                                   const Tensor& ig,
                                   const Tensor& hg,
                                   const Tensor& third) {
  switch (mode) {
    case RnnMode::Tanh: {
      const Tensor y = tanh(ig + hg);
      const Tensor d = gh * (1.0 - y * y);
      return {d, d, Tensor()};
    }
    case RnnMode::Relu: {
      const Tensor d = where(ig + hg > 0.0, gh, Scalar(0.0));
      return {d, d, Tensor()};
    }
    case RnnMode::Lstm: {
      const std::vector<Tensor> p = chunk(ig + hg, 4, 1);
      const Tensor i = sigmoid(p[0]), f = sigmoid(p[1]), g = tanh(p[2]), o = sigmoid(p[3]);
      const Tensor& cx = third;
      const Tensor tc = tanh(f * cx + i * g);
      Tensor dc = gh * o * (1.0 - tc * tc);
      if (gc.defined()) dc = dc + gc;
      const Tensor d = cat({dc * g * i * (1.0 - i), dc * cx * f * (1.0 - f), dc * i * (1.0 - g * g),
                            gh * tc * o * (1.0 - o)},
                           1);
      return {d, d, dc * f};
    }
    case RnnMode::Gru: {
      const std::vector<Tensor> a = chunk(ig, 3, 1), b = chunk(hg, 3, 1);
      const Tensor& hx = third;
      const Tensor r = sigmoid(a[0] + b[0]), z = sigmoid(a[1] + b[1]);
      const Tensor n = tanh(a[2] + r * b[2]);
      const Tensor dn = gh * (1.0 - z) * (1.0 - n * n);
      const Tensor dr = dn * b[2] * r * (1.0 - r);
      const Tensor dz = gh * (hx - n) * z * (1.0 - z);
      return {cat({dr, dz, dn}, 1), cat({dr, dz, dn * r}, 1), gh * z};
    }
  }
  return {};
}

const char* cell_node_name(RnnMode m) {
  switch (m) {
    case RnnMode::Tanh:
      return "RnnTanhCellBackward0";
    case RnnMode::Relu:
      return "RnnReluCellBackward0";
    case RnnMode::Lstm:
      return "LstmCellBackward0";
    case RnnMode::Gru:
      return "GruCellBackward0";
  }
  return "";
}

// The fused nonlinearity of one step on precomputed gates (biases included); returns hy and, for
// the LSTM, cy. One node: its backward is one kernel (or public ops under create_graph).
std::pair<Tensor, Tensor> fused_cell(RnnMode mode,
                                     const char* name,
                                     const Tensor& ig,
                                     const Tensor& hg,
                                     const Tensor& hx,
                                     const Tensor& cx) {
  const RnnKernels& k = rnn_detail::rnn_kernels(ig, name);
  const bool lstm = mode == RnnMode::Lstm, gru = mode == RnnMode::Gru;
  const int64_t B = hx.size(0), H = hx.size(1);
  const TensorOptions opts = TensorOptions(ig.dtype()).device(ig.device());
  RnnCellForward a;
  a.igates = ig;  // addmm's results: contiguous
  a.hgates = hg;
  a.hx = rnn_detail::unit_rows(hx);
  if (lstm) a.cx = rnn_detail::unit_rows(cx);
  a.hy = empty({B, H}, opts);
  if (lstm) a.cy = empty({B, H}, opts);
  if (lstm || gru) a.ws = empty({B, 4 * H}, opts);
  k.cell_forward(mode, a);
  const Tensor& third = lstm ? cx : hx;
  const bool third_in = lstm || gru;
  if (!(third_in ? any_requires_grad({&ig, &hg, &third}) : any_requires_grad(ig, hg))) {
    return {a.hy, a.cy};
  }
  auto fn = [mode, B, H, sig = SavedTensor(ig), shg = SavedTensor(hg),
             s3 = third_in ? SavedTensor(third) : SavedTensor(), ws = a.ws,
             shy = SavedTensor(a.hy, 0), scy = lstm ? SavedTensor(a.cy, 1) : SavedTensor()](
                TensorList& g, Node& n) -> TensorList {
    const bool lstm = mode == RnnMode::Lstm, gru = mode == RnnMode::Gru;
    const Tensor gc = lstm ? g[1] : Tensor();
    TensorList out;
    if (GradMode::is_enabled()) {
      out = composite_cell_backward(mode, g[0], gc, sig.unpack(n), shg.unpack(n),
                                    s3.defined() ? s3.unpack(n) : Tensor());
    } else {
      const RnnKernels& k = rnn_detail::rnn_kernels(g[0], "rnn");
      const TensorOptions opts = TensorOptions(g[0].dtype()).device(g[0].device());
      const int64_t G = rnn_gates(mode);
      RnnCellBackward b;
      b.g0 = rnn_detail::unit_rows(g[0]);
      if (lstm) b.grad_cy = rnn_detail::unit_rows(gc);
      b.ws = ws;
      if (lstm) {
        b.cx = rnn_detail::unit_rows(s3.unpack(n));
        b.cy = scy.unpack(n);
      }
      if (gru) b.hx = rnn_detail::unit_rows(s3.unpack(n));
      if (!lstm && !gru) b.hy = shy.unpack(n);
      b.d_igates = empty({B, G * H}, opts);
      if (gru) b.d_hgates = empty({B, G * H}, opts);
      if (lstm) b.grad_cx = empty({B, H}, opts);
      if (gru) b.grad_hx = empty({B, H}, opts);
      k.cell_backward(mode, b);
      out = {b.d_igates, gru ? b.d_hgates : b.d_igates, lstm ? b.grad_cx : b.grad_hx};
    }
    if (!(lstm || gru)) out.pop_back();
    return out;
  };
  std::vector<const Tensor*> inputs{&ig, &hg};
  if (third_in) inputs.push_back(&third);
  std::vector<const Tensor*> outputs{&a.hy};
  if (lstm) outputs.push_back(&a.cy);
  rnn_detail::record_node(cell_node_name(mode), inputs, outputs, std::move(fn));
  return {a.hy, a.cy};
}

std::pair<Tensor, Tensor> cell(RnnMode mode,
                               const char* name,
                               const Tensor& input,
                               const Tensor& hx,
                               const Tensor& cx,
                               const Tensor& w_ih,
                               const Tensor& w_hh,
                               const std::optional<Tensor>& b_ih,
                               const std::optional<Tensor>& b_hh) {
  check_cell(mode, name, input, hx, cx, w_ih, w_hh, b_ih, b_hh);
  // The two products go through addmm (their backward is addmm's); the rest is one fused step.
  const Tensor ig = gates_of(input, w_ih, b_ih);
  const Tensor hg = gates_of(hx, w_hh, b_hh);
  return fused_cell(mode, name, ig, hg, hx, cx);
}

// ---- sequences
// -----------------------------------------------------------------------------------

struct RnnConfig {
  RnnMode mode;
  const char* name;
  int64_t H, P;  // hidden size; P = H, or the projection size of an LSTM with projections
  bool proj, biases;
};

// One direction of one layer: its parameters and initial states (undefined when absent).
struct LayerDir {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr, h0, c0;
};

struct LayerResult {
  Tensor out, hn, cn;  // [T, B, D*P], [D, B, P], [D, B, H] (LSTM)
};

// What the forward of one direction keeps for backward (internal buffers, time-major).
struct DirBuffers {
  Tensor cs;  // [T, B, H] cell states (LSTM)
  Tensor ws;  // [T, B, 4H] gate values (LSTM, GRU)
  Tensor hh;  // [T, B, H] hidden states before the projection
};

// A [rows, cols] matrix view of t[first : first + n] of a [T, B, C] tensor whose dims 0 and 1
// flatten (row stride = t's stride 1): the rows of n time steps.
Tensor steps_as_rows(const Tensor& t, int64_t first, int64_t n) {
  const int64_t B = t.size(1), C = t.size(2);
  return as_strided(t, {n * B, C}, {t.stride(1), t.stride(2)},
                    t.storage_offset() + first * t.stride(0));
}

// Runs one layer, all directions, over x [T, B, I] (contiguous). One autograd node for the layer.
LayerResult run_layer(const RnnConfig& cfg, const Tensor& x, const std::vector<LayerDir>& dirs) {
  const RnnKernels& k = rnn_detail::rnn_kernels(x, cfg.name);
  const RnnMode mode = cfg.mode;
  const bool lstm = mode == RnnMode::Lstm, gru = mode == RnnMode::Gru;
  const int64_t T = x.size(0), B = x.size(1), I = x.size(2), H = cfg.H, P = cfg.P;
  const int64_t G = rnn_gates(mode), D = int64_t(dirs.size());
  const TensorOptions opts = TensorOptions(x.dtype()).device(x.device());

  std::vector<const Tensor*> inputs{&x};
  for (const LayerDir& d : dirs) {
    for (const Tensor* t : {&d.h0, &d.c0, &d.w_ih, &d.w_hh, &d.b_ih, &d.b_hh, &d.w_hr}) {
      if (t->defined()) inputs.push_back(t);
    }
  }
  const bool grad = rnn_detail::any_requires_grad(inputs);

  LayerResult r;
  r.out = empty({T, B, D * P}, opts);
  r.hn = empty({D, B, P}, opts);
  if (lstm) r.cn = empty({D, B, H}, opts);
  std::vector<DirBuffers> buf(static_cast<size_t>(D));
  {
    NoGradGuard no_grad;
    const Tensor x2 = x.view({T * B, I});
    const Tensor hg = gru ? empty({B, G * H}, opts) : Tensor();
    // Without a graph to record, gate values are not kept and one step's pre-projection state
    // suffices.
    const Tensor hh_step = cfg.proj && !grad ? empty({B, H}, opts) : Tensor();
    for (int64_t d = 0; d < D; ++d) {
      const LayerDir& w = dirs[size_t(d)];
      DirBuffers& s = buf[size_t(d)];
      // The input's part of the gates. With prepared weights and at least 16 rows, one product
      // per step: at [32, 512] x [512, 2048] these run at ~265 GFLOP/s against ~248 for one
      // product over all steps (27.6 against 28.5 ms with the recurrent products, one thread),
      // and no [T*B, G*H] buffer goes through memory. Otherwise one product over all steps
      // (with few rows, each step would read all the weights for little work).
      const auto wih =
          B >= 16 ? k.pack_weights(rnn_detail::gemm_operand(w.w_ih).t(), B, I, G * H, false)
                  : nullptr;
      const bool per_step = wih && wih->prepared();
      const Tensor xp = empty({per_step ? B : T * B, G * H}, opts);
      if (!per_step) k.gemm(xp, x2, rnn_detail::gemm_operand(w.w_ih).t(), false);
      // The recurrent product per step against w_hh^T prepared once (rows of h_{t-1} are D*P
      // apart in the output), accumulated into the input's part except for the GRU, whose n gate
      // needs the recurrent part apart.
      const auto whh = k.pack_weights(rnn_detail::gemm_operand(w.w_hh).t(), B, D * P, G * H, !gru);
      const auto whr =
          cfg.proj ? k.pack_weights(rnn_detail::gemm_operand(w.w_hr).t(), B, H, D * P, false)
                   : nullptr;
      // One bias vector b_ih + b_hh, except for the GRU, whose n gate keeps b_hn apart.
      Tensor ib = w.b_ih.defined() ? w.b_ih.contiguous() : Tensor();
      Tensor hb = w.b_hh.defined() ? w.b_hh.contiguous() : Tensor();
      if (!gru && ib.defined()) {
        ib = ib + hb;
        hb = Tensor();
      }
      const Tensor out_d = r.out.narrow(2, d * P, P);
      const Tensor h0 = rnn_detail::unit_rows(w.h0);
      const Tensor c0 = lstm ? rnn_detail::unit_rows(w.c0) : Tensor();
      if (lstm) s.cs = empty({T, B, H}, opts);
      if ((lstm || gru) && grad) s.ws = empty({T, B, 4 * H}, opts);
      if (cfg.proj && grad) s.hh = empty({T, B, H}, opts);
      const bool reverse = d == 1;
      for (int64_t step = 0; step < T; ++step) {
        const int64_t t = reverse ? T - 1 - step : step, tp = reverse ? t + 1 : t - 1;
        const Tensor hprev = step == 0 ? h0 : out_d.select(0, tp);
        RnnCellForward a;
        if (per_step) {
          a.igates = xp;
          k.packed_gemm(*wih, xp, x2.narrow(0, t * B, B));
        } else {
          a.igates = xp.narrow(0, t * B, B);
        }
        k.packed_gemm(*whh, gru ? hg : a.igates, hprev);
        if (gru) a.hgates = hg;
        a.ibias = ib;
        a.hbias = hb;
        a.hx = hprev;
        if (lstm) a.cx = step == 0 ? c0 : s.cs.select(0, tp);
        const Tensor hh_t = cfg.proj ? (grad ? s.hh.select(0, t) : hh_step) : Tensor();
        a.hy = cfg.proj ? hh_t : out_d.select(0, t);
        if (lstm) a.cy = s.cs.select(0, t);
        if ((lstm || gru) && grad) a.ws = s.ws.select(0, t);
        k.cell_forward(mode, a);
        if (cfg.proj) k.packed_gemm(*whr, out_d.select(0, t), hh_t);
      }
      const int64_t last = reverse ? 0 : T - 1;
      r.hn.select(0, d).copy_(out_d.select(0, last));
      if (lstm) r.cn.select(0, d).copy_(s.cs.select(0, last));
    }
  }
  if (!grad) return r;

  struct SavedDir {
    SavedTensor w_ih, w_hh, w_hr, h0, c0;
  };
  std::vector<SavedDir> saved;
  for (const LayerDir& d : dirs) {
    saved.push_back({SavedTensor(d.w_ih), SavedTensor(d.w_hh),
                     d.w_hr.defined() ? SavedTensor(d.w_hr) : SavedTensor(), SavedTensor(d.h0),
                     d.c0.defined() ? SavedTensor(d.c0) : SavedTensor()});
  }
  auto fn = [cfg, T, B, I, D, sx = SavedTensor(x), saved = std::move(saved), buf = std::move(buf),
             sout = SavedTensor(r.out, 0)](TensorList& g, Node& n) -> TensorList {
    const RnnMode mode = cfg.mode;
    const bool lstm = mode == RnnMode::Lstm, gru = mode == RnnMode::Gru;
    const int64_t H = cfg.H, P = cfg.P, G = rnn_gates(mode);
    const bool create_graph = GradMode::is_enabled();
    NoGradGuard no_grad;
    const Tensor x = sx.unpack(n), out = sout.unpack(n);
    const RnnKernels& k = rnn_detail::rnn_kernels(x, cfg.name);
    const TensorOptions opts = TensorOptions(x.dtype()).device(x.device());
    const auto& edges = n.next_edges();
    // The node's inputs, in the order run_layer listed them.
    TensorList res(edges.size());
    size_t slot = 1;
    const Tensor x2 = x.view({T * B, I});
    const Tensor go = g[0].defined() ? rnn_detail::unit_rows(g[0]) : Tensor();
    Tensor dx2 = edges[0].valid() ? empty({T * B, I}, opts) : Tensor();
    for (int64_t d = 0; d < D; ++d) {
      const SavedDir& sd = saved[size_t(d)];
      const DirBuffers& s = buf[size_t(d)];
      const Tensor w_ih = sd.w_ih.unpack(n), w_hh = rnn_detail::gemm_operand(sd.w_hh.unpack(n));
      const Tensor w_hr = cfg.proj ? rnn_detail::gemm_operand(sd.w_hr.unpack(n)) : Tensor();
      const Tensor h0 = rnn_detail::unit_rows(sd.h0.unpack(n));
      const Tensor c0 = lstm ? rnn_detail::unit_rows(sd.c0.unpack(n)) : Tensor();
      const size_t i_h0 = slot++, i_c0 = lstm ? slot++ : 0, i_wih = slot++, i_whh = slot++;
      const size_t i_bih = cfg.biases ? slot++ : 0, i_bhh = cfg.biases ? slot++ : 0;
      const size_t i_whr = cfg.proj ? slot++ : 0;

      // The recurrent gradient dG_t w_hh of every step against w_hh prepared once.
      const auto whh_p = k.pack_weights(w_hh, B, G * H, P, false);
      const auto whr_p = cfg.proj ? k.pack_weights(w_hr, B, P, H, false) : nullptr;
      const Tensor dgi = empty({T * B, G * H}, opts);
      const Tensor dgh = gru ? empty({T * B, G * H}, opts) : dgi;
      const Tensor dh_rec = empty({B, P}, opts);
      const Tensor dhx = gru ? empty({B, H}, opts) : Tensor();
      const Tensor dc = lstm ? empty({B, H}, opts) : Tensor();
      const Tensor dht = cfg.proj ? empty({T, B, P}, opts) : Tensor();
      const Tensor dhh = cfg.proj ? empty({B, H}, opts) : Tensor();
      const Tensor out_d = out.narrow(2, d * P, P);
      const Tensor go_d = go.defined() ? go.narrow(2, d * P, P) : Tensor();
      const Tensor ghn = g[1].defined() ? rnn_detail::unit_rows(g[1].select(0, d)) : Tensor();
      const Tensor gcn =
          lstm && g[2].defined() ? rnn_detail::unit_rows(g[2].select(0, d)) : Tensor();
      const bool reverse = d == 1;
      int64_t t_next = 0;  // the step processed just before (later in time order)
      for (int64_t step = T - 1; step >= 0; --step) {
        const int64_t t = reverse ? T - 1 - step : step, tp = reverse ? t + 1 : t - 1;
        const bool last = step == T - 1;
        RnnCellBackward a;
        if (cfg.proj) {
          // dh_t = grad of out[t] + the recurrent gradient; then back through the projection.
          Tensor dh_t = dht.select(0, t);
          if (go_d.defined()) {
            dh_t.copy_(go_d.select(0, t));
          } else {
            dh_t.zero_();
          }
          if (last) {
            if (ghn.defined()) dh_t.add_(ghn);
          } else {
            k.gemm(dh_t, dgh.narrow(0, t_next * B, B), w_hh, true);
          }
          k.packed_gemm(*whr_p, dhh, dh_t);
          a.g0 = dhh;
        } else {
          if (go_d.defined()) a.g0 = go_d.select(0, t);
          a.g1 = last ? ghn : dh_rec;
          if (gru && !last) a.g2 = dhx;
        }
        if (lstm) {
          a.grad_cy = last ? gcn : dc;  // grad_cx may overwrite grad_cy in place
          a.cx = step == 0 ? c0 : s.cs.select(0, tp);
          a.cy = s.cs.select(0, t);
        }
        if (lstm || gru) a.ws = s.ws.select(0, t);
        if (gru) a.hx = step == 0 ? h0 : out_d.select(0, tp);
        if (!lstm && !gru) a.hy = out_d.select(0, t);
        a.d_igates = dgi.narrow(0, t * B, B);
        if (gru) a.d_hgates = dgh.narrow(0, t * B, B);
        a.grad_cx = dc;
        a.grad_hx = dhx;  // may overwrite g2 in place
        k.cell_backward(mode, a);
        if (!cfg.proj) k.packed_gemm(*whh_p, dh_rec, dgh.narrow(0, t * B, B));
        t_next = t;
      }
      // Gradients of the initial states: the step at the first time position (t_next).
      if (edges[i_h0].valid()) {
        if (cfg.proj) k.packed_gemm(*whh_p, dh_rec, dgh.narrow(0, t_next * B, B));
        res[i_h0] = gru ? dh_rec + dhx : dh_rec;
      }
      if (lstm && edges[i_c0].valid()) res[i_c0] = dc;
      // Weight gradients: one product over all time steps each.
      if (edges[i_wih].valid()) {
        res[i_wih] = empty({G * H, I}, opts);
        k.gemm(res[i_wih], dgi.t(), x2, false);
      }
      if (edges[i_whh].valid()) {
        // Step t reads h_{t-1} (reverse: h_{t+1}); the first step reads h0.
        const Tensor dw = empty({G * H, P}, opts);
        if (T > 1) {
          const int64_t g0 = reverse ? 0 : 1, h_first = reverse ? 1 : 0;
          k.gemm(dw, dgh.narrow(0, g0 * B, (T - 1) * B).t(), steps_as_rows(out_d, h_first, T - 1),
                 false);
        }
        k.gemm(dw, dgh.narrow(0, t_next * B, B).t(), h0, T > 1);
        res[i_whh] = dw;
      }
      if (cfg.biases) {
        const Tensor db =
            edges[i_bih].valid() || (!gru && edges[i_bhh].valid()) ? sum(dgi, {0}) : Tensor();
        if (edges[i_bih].valid()) res[i_bih] = db;
        if (edges[i_bhh].valid()) res[i_bhh] = gru ? sum(dgh, {0}) : db;
      }
      if (cfg.proj && edges[i_whr].valid()) {
        res[i_whr] = empty({P, H}, opts);
        k.gemm(res[i_whr], dht.view({T * B, P}).t(), s.hh.view({T * B, H}), false);
      }
      if (dx2.defined()) k.gemm(dx2, dgi, rnn_detail::gemm_operand(w_ih), d > 0);
    }
    if (dx2.defined()) res[0] = dx2.view({T, B, I});
    if (create_graph) {
      std::vector<Tensor> sources(g.begin(), g.end());
      sources.push_back(x);
      for (const SavedDir& sd : saved) {
        for (const SavedTensor* st : {&sd.w_ih, &sd.w_hh, &sd.w_hr, &sd.h0, &sd.c0}) {
          if (st->defined()) sources.push_back(st->unpack(n));
        }
      }
      rnn_detail::forbid_double_backward(cfg.name, res, sources);
    }
    return res;
  };
  std::vector<const Tensor*> outputs{&r.out, &r.hn};
  if (lstm) outputs.push_back(&r.cn);
  rnn_detail::record_node(lstm  ? "LstmLayerBackward0"
                          : gru ? "GruLayerBackward0"
                                : "RnnLayerBackward0",
                          inputs, outputs, std::move(fn));
  return r;
}

// Dropout between layers: zeroes each element with probability p, scales the rest by 1/(1-p).
Tensor dropout_between(const Tensor& x, double p) {
  if (p >= 1) return x * 0.0;
  Tensor mask;
  {
    NoGradGuard no_grad;
    mask = bernoulli(x, 1 - p) * (1.0 / (1 - p));
  }
  return x * mask;
}

std::string param_name(const char* kind, int64_t layer, int64_t d) {
  return std::string(kind) + "_l" + std::to_string(layer) + (d == 1 ? "_reverse" : "");
}

void check_param(const Tensor& p,
                 const Tensor& input,
                 const RnnConfig& cfg,
                 const char* kind,
                 int64_t layer,
                 int64_t d,
                 IntArrayRef shape) {
  rnn_detail::check_like(p, input, cfg.name);
  EMBER_CHECK(p.sizes() == shape, "[", cfg.name, "] expected ", param_name(kind, layer, d),
              " of shape ", shape, ", got ", p.sizes());
}

std::tuple<Tensor, Tensor, Tensor> rnn_impl(RnnMode mode,
                                            const char* name,
                                            const Tensor& input,
                                            const Tensor& hx,
                                            const Tensor& cx,
                                            const std::vector<Tensor>& params,
                                            bool has_biases,
                                            int64_t num_layers,
                                            double dropout,
                                            bool train,
                                            bool bidirectional,
                                            bool batch_first) {
  rnn_detail::check_floating(input, name);
  EMBER_CHECK(input.dim() == 3, "[", name, "] expected input of 3 dims (",
              batch_first ? "batch, seq_len, input_size" : "seq_len, batch, input_size", "), got ",
              input.dim(), " dims");
  EMBER_CHECK(num_layers >= 1, "[", name, "] num_layers must be at least 1, got ", num_layers);
  EMBER_CHECK_VALUE(dropout >= 0 && dropout <= 1, "[", name,
                    "] dropout should be a number in range [0, 1], got ", dropout);
  const bool lstm = mode == RnnMode::Lstm;
  const int64_t D = bidirectional ? 2 : 1, L = num_layers, G = rnn_gates(mode);
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  const int64_t T = x.size(0), B = x.size(1), I = x.size(2);
  EMBER_CHECK(T > 0, "[", name, "] Expected sequence length to be larger than 0 in RNN");
  EMBER_CHECK(hx.dim() == 3, "[", name, "] expected hx of 3 dims (num_layers * num_directions, ",
              "batch, hidden_size), got ", hx.dim(), " dims");
  if (lstm) {
    EMBER_CHECK(cx.dim() == 3, "[", name, "] expected c_0 of 3 dims, got ", cx.dim(), " dims");
  }
  const int64_t P = hx.size(2), H = lstm ? cx.size(2) : P;
  const RnnConfig cfg{mode, name, H, P, lstm && P != H, has_biases};
  rnn_detail::check_like(hx, input, name);
  const DimVector h_shape{L * D, B, P}, c_shape{L * D, B, H};
  EMBER_CHECK(hx.sizes() == IntArrayRef(h_shape), "[", name, "] Expected hidden", lstm ? "[0]" : "",
              " size ", IntArrayRef(h_shape), ", got ", hx.sizes());
  if (lstm) {
    rnn_detail::check_like(cx, input, name);
    EMBER_CHECK(cx.sizes() == IntArrayRef(c_shape), "[", name, "] Expected hidden[1] size ",
                IntArrayRef(c_shape), ", got ", cx.sizes());
  }
  const int64_t per = 2 + (has_biases ? 2 : 0) + (cfg.proj ? 1 : 0);
  EMBER_CHECK(int64_t(params.size()) == L * D * per, "[", name,
              "] got an incorrect number of RNN parameters: expected ", L * D * per, " (", per,
              " per layer and direction), got ", params.size());
  std::vector<std::vector<LayerDir>> layers(static_cast<size_t>(L));
  for (int64_t l = 0; l < L; ++l) {
    const int64_t in = l == 0 ? I : D * P;
    for (int64_t d = 0; d < D; ++d) {
      const Tensor* p = params.data() + (l * D + d) * per;
      LayerDir w;
      w.w_ih = p[0];
      w.w_hh = p[1];
      if (l == 0 && w.w_ih.dim() == 2 && w.w_ih.size(0) == G * H) {
        EMBER_CHECK(w.w_ih.size(1) == I, "[", name, "] input has inconsistent input_size: got ", I,
                    ", expected ", w.w_ih.size(1));
      }
      check_param(w.w_ih, input, cfg, "weight_ih", l, d, {G * H, in});
      check_param(w.w_hh, input, cfg, "weight_hh", l, d, {G * H, P});
      if (has_biases) {
        w.b_ih = p[2];
        w.b_hh = p[3];
        check_param(w.b_ih, input, cfg, "bias_ih", l, d, {G * H});
        check_param(w.b_hh, input, cfg, "bias_hh", l, d, {G * H});
      }
      if (cfg.proj) {
        w.w_hr = p[per - 1];
        check_param(w.w_hr, input, cfg, "weight_hr", l, d, {P, H});
      }
      w.h0 = hx.select(0, l * D + d);
      if (lstm) w.c0 = cx.select(0, l * D + d);
      layers[size_t(l)].push_back(std::move(w));
    }
  }
  Tensor layer_in = x.is_contiguous() ? x : x.contiguous();
  std::vector<Tensor> hn, cn;
  for (int64_t l = 0; l < L; ++l) {
    if (l > 0 && train && dropout > 0) layer_in = dropout_between(layer_in, dropout);
    LayerResult r = run_layer(cfg, layer_in, layers[size_t(l)]);
    layer_in = r.out;
    hn.push_back(r.hn);
    if (lstm) cn.push_back(r.cn);
  }
  Tensor output = batch_first ? layer_in.transpose(0, 1) : layer_in;
  Tensor h_n = L == 1 ? hn[0] : cat(hn, 0);
  Tensor c_n = lstm ? (L == 1 ? cn[0] : cat(cn, 0)) : Tensor();
  return {output, h_n, c_n};
}

}  // namespace

namespace rnn_detail {

bool any_requires_grad(const std::vector<const Tensor*>& ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : ts) {
    if (t->defined() && t->requires_grad()) return true;
  }
  return false;
}

void forbid_double_backward(const char* name,
                            std::vector<Tensor>& results,
                            const std::vector<Tensor>& sources) {
  std::vector<const Tensor*> in, out;
  for (const Tensor& s : sources) {
    if (s.defined() && s.requires_grad()) in.push_back(&s);
  }
  if (in.empty()) return;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].defined()) continue;
    for (size_t j = 0; j < i; ++j) {
      if (results[j].is_same(results[i])) results[i] = results[i].clone();  // one node per tensor
    }
    out.push_back(&results[i]);
  }
  record_node("NotImplementedBackward", in, out, [name](TensorList&, Node&) -> TensorList {
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, "[", name,
                    "] double backward (a derivative of this op's gradient) is not implemented");
  });
}

}  // namespace rnn_detail

std::span<const OpInfo> nn_rnn_op_infos() { return kRnnOps; }

Tensor rnn_tanh_cell(const Tensor& input,
                     const Tensor& hx,
                     const Tensor& w_ih,
                     const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih,
                     const std::optional<Tensor>& b_hh) {
  return cell(RnnMode::Tanh, "rnn_tanh_cell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).first;
}

Tensor rnn_relu_cell(const Tensor& input,
                     const Tensor& hx,
                     const Tensor& w_ih,
                     const Tensor& w_hh,
                     const std::optional<Tensor>& b_ih,
                     const std::optional<Tensor>& b_hh) {
  return cell(RnnMode::Relu, "rnn_relu_cell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).first;
}

std::pair<Tensor, Tensor> lstm_cell(const Tensor& input,
                                    const std::vector<Tensor>& hx,
                                    const Tensor& w_ih,
                                    const Tensor& w_hh,
                                    const std::optional<Tensor>& b_ih,
                                    const std::optional<Tensor>& b_hh) {
  EMBER_CHECK(hx.size() == 2, "[lstm_cell] expects two hidden states (h, c), got ", hx.size());
  return cell(RnnMode::Lstm, "lstm_cell", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh);
}

Tensor gru_cell(const Tensor& input,
                const Tensor& hx,
                const Tensor& w_ih,
                const Tensor& w_hh,
                const std::optional<Tensor>& b_ih,
                const std::optional<Tensor>& b_hh) {
  return cell(RnnMode::Gru, "gru_cell", input, hx, Tensor(), w_ih, w_hh, b_ih, b_hh).first;
}

std::pair<Tensor, Tensor> rnn_tanh(const Tensor& input,
                                   const Tensor& hx,
                                   const std::vector<Tensor>& params,
                                   bool has_biases,
                                   int64_t num_layers,
                                   double dropout,
                                   bool train,
                                   bool bidirectional,
                                   bool batch_first) {
  auto [out, hn, cn] = rnn_impl(RnnMode::Tanh, "rnn_tanh", input, hx, Tensor(), params, has_biases,
                                num_layers, dropout, train, bidirectional, batch_first);
  return {out, hn};
}

std::pair<Tensor, Tensor> rnn_relu(const Tensor& input,
                                   const Tensor& hx,
                                   const std::vector<Tensor>& params,
                                   bool has_biases,
                                   int64_t num_layers,
                                   double dropout,
                                   bool train,
                                   bool bidirectional,
                                   bool batch_first) {
  auto [out, hn, cn] = rnn_impl(RnnMode::Relu, "rnn_relu", input, hx, Tensor(), params, has_biases,
                                num_layers, dropout, train, bidirectional, batch_first);
  return {out, hn};
}

std::pair<Tensor, Tensor> gru(const Tensor& input,
                              const Tensor& hx,
                              const std::vector<Tensor>& params,
                              bool has_biases,
                              int64_t num_layers,
                              double dropout,
                              bool train,
                              bool bidirectional,
                              bool batch_first) {
  auto [out, hn, cn] = rnn_impl(RnnMode::Gru, "gru", input, hx, Tensor(), params, has_biases,
                                num_layers, dropout, train, bidirectional, batch_first);
  return {out, hn};
}

std::tuple<Tensor, Tensor, Tensor> lstm(const Tensor& input,
                                        const std::vector<Tensor>& hx,
                                        const std::vector<Tensor>& params,
                                        bool has_biases,
                                        int64_t num_layers,
                                        double dropout,
                                        bool train,
                                        bool bidirectional,
                                        bool batch_first) {
  EMBER_CHECK(hx.size() == 2, "[lstm] expects two hidden states (h_0, c_0), got ", hx.size());
  return rnn_impl(RnnMode::Lstm, "lstm", input, hx[0], hx[1], params, has_biases, num_layers,
                  dropout, train, bidirectional, batch_first);
}

}  // namespace ember
