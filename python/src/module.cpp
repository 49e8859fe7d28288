// The extension module ember._C: one init function per binding file, as the C++ areas.
#include "convert.h"
#include "init.h"

NB_MODULE(_C, m) {
  using namespace ember;
  // ember errors become the Python exception PyTorch raises for the same mistake.
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind()) {
        case ErrorKind::Value:
          type = PyExc_ValueError;
          break;
        case ErrorKind::Type:
          type = PyExc_TypeError;
          break;
        case ErrorKind::Index:
          type = PyExc_IndexError;
          break;
        case ErrorKind::NotImplemented:
          type = PyExc_NotImplementedError;
          break;
        case ErrorKind::LinAlg:
          type = py::linalg_error();
          break;
        case ErrorKind::Runtime:
          break;
      }
      PyErr_SetString(type, e.what());
    } catch (const nb::cast_error&) {
      // A Python value that a binding could not convert: the caller passed the wrong type.
      PyErr_SetString(PyExc_TypeError, "an argument has the wrong type for this ember function");
    }
  });
  py::init_types(m);
  py::init_tensor(m);
  py::init_elementwise(m);
  py::init_reduce(m);
  py::init_statistics(m);
  py::init_softmax(m);
  py::init_view(m);
  py::init_indexing(m);
  py::init_shape(m);
  py::init_sort(m);
  py::init_scan(m);
  py::init_complex(m);
  py::init_fft(m);
  py::init_creation(m);
  py::init_random(m);
  py::init_linalg(m);
  py::init_linalg_factor(m);
  py::init_autograd(m);
  py::init_interop(m);
  py::init_multiprocessing(m);
  py::init_distributed(m);
  py::init_utils(m);
  py::init_nn_conv(m);
  py::init_nn_pool(m);
  py::init_nn_resample(m);
  py::init_nn_norm(m);
  py::init_nn_dropout(m);
  py::init_nn_loss(m);
  py::init_nn_embedding(m);
  py::init_nn_rnn(m);
  py::init_nn_attention(m);
  py::init_io(m);
  py::init_optim(m);
  py::release_tensor_class();
}
