// The native engine: the forward of the project's GPT (experiments/model.py) written out in C++
// for one sequence, on a ring-buffer kv cache with the compiled engine's StaticCache semantics
// (experiments/graphs.py), plus a whole draft round, and the acceptance rule (experiments/rule.py)
// on its own or inside a whole decoding step (a forward, its probabilities, the rule, the sample).
//
// experiments/native.py builds this file at first use (torch.utils.cpp_extension.load) and is its
// only caller. It is one translation unit in parts, each a header included below: rows.h (packed
// weights, the summation order, row operations), kernels.h (the matmul's kernel paths), rule.h
// (sampling and the acceptance rule), model.h (weights, RoPE, a Session's cache and steps) and
// heads.h (Medusa's heads); this file keeps the bindings. Tensors cross the boundary as raw addresses of contiguous float32 / float64 buffers
// that the Python side checks and allocates (token ids as lists), so nothing here calls into ATen
// and the file needs pybind11 alone (which also keeps the one-time build short).
//
// Everything is fp32 and single-threaded. The time goes into small-row matmuls (1..64 rows): each
// weight is packed once into 16-column panels, and a panel kernel reads every weight once for all
// rows. There are three kernel paths, chosen at run time: AVX-512, AVX2+FMA and portable C++. The
// SIMD ones are compiled with target attributes rather than -march=native, so the build runs on any
// x86-64; elsewhere only the portable path exists. All three add in the same order, so they agree
// to the rounding of a product (see "One summation order", rows.h).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NATIVE_X86 1
#else
#define NATIVE_X86 0
#endif

namespace py = pybind11;

namespace {

// The parts, in the order each needs the ones before it.
#include "rows.h"
#include "kernels.h"
#include "rule.h"
#include "model.h"
#include "heads.h"

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.doc() = "The native engine's kernel (see experiments/native.py).";
    py::class_<Weights, std::shared_ptr<Weights>>(m, "Weights")
        .def(py::init<int, int, int, int, int, const std::vector<uintptr_t>&, bool>(), py::arg("n_layer"),
             py::arg("n_embd"), py::arg("n_head"), py::arg("mlp_hidden"), py::arg("vocab_size"), py::arg("addresses"),
             py::arg("fuses") = false)
        .def("set_rope", &Weights::set_rope, py::arg("cos"), py::arg("sin"), py::arg("positions"))
        .def_readonly("rope_positions", &Weights::rope_positions);
    py::class_<Session>(m, "Session")
        .def(py::init<std::shared_ptr<Weights>, int, const std::string&>(), py::arg("weights"), py::arg("window"),
             py::arg("kernel"))
        .def_property_readonly("kernel", &Session::kernel)
        .def("forward", &Session::forward)
        .def("forward_tree", &Session::forward_tree)
        .def("forward_pairs", &Session::forward_pairs)
        .def("forward_block", &Session::forward_block)
        .def("keep_path", &Session::keep_path)
        .def("draft_round", &Session::draft_round)
        .def("sample_next", &Session::sample_next)
        .def("verify", &Session::verify)
        .def("set_layers", &Session::set_layers);
    py::class_<MedusaHeadsWeights, std::shared_ptr<MedusaHeadsWeights>>(m, "MedusaHeadsWeights")
        .def(py::init<int, int, int, int, const std::vector<uintptr_t>&>(), py::arg("n_heads"), py::arg("n_embd"),
             py::arg("vocab_size"), py::arg("hidden"), py::arg("addresses"));
    py::class_<MedusaSession>(m, "MedusaSession")
        .def(py::init<std::shared_ptr<MedusaHeadsWeights>, const std::string&>(), py::arg("weights"), py::arg("kernel"))
        .def("logits", &MedusaSession::logits);
    m.def("kernels", &kernel_names, "The kernel paths this machine runs, fastest first.");
    m.def("accept_reject", &accept_reject);
}
