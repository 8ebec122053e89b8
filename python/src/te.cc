// Tensor expressions and schedules from Python (`tessera.te`): expressions built with Python
// operators and lambdas over the C++ IR, placeholders, computes, reductions and every schedule
// primitive. The nodes are the C++ ones; Python holds references.
#include <pybind11/functional.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/data_type.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace tessera {
namespace python {
namespace {

using ir::Expr;
using ir::IterVar;
using ir::Var;

// A Python value as an expression: an Expr (or Var), an IterVar, a bool, an int or a float.
Expr ToExpr(const py::handle& value) {
  if (py::isinstance<Expr>(value)) return value.cast<Expr>();
  if (py::isinstance<IterVar>(value)) return value.cast<IterVar>();
  if (py::isinstance<py::bool_>(value))
    return ir::cast(ir::DataType::Bool(), Expr(value.cast<bool>() ? 1 : 0));
  if (py::isinstance<py::int_>(value)) return Expr(value.cast<int32_t>());
  if (py::isinstance<py::float_>(value)) return Expr(value.cast<float>());
  throw py::type_error("expected an expression, an int or a float, got " +
                       std::string(py::str(py::type::of(value).attr("__name__"))));
}

std::vector<Expr> ToExprs(const py::handle& values) {
  std::vector<Expr> out;
  if (py::isinstance<py::tuple>(values) || py::isinstance<py::list>(values)) {
    for (const py::handle& v : values) out.push_back(ToExpr(v));
  } else {
    out.push_back(ToExpr(values));
  }
  return out;
}

std::vector<IterVar> ToIterVars(const py::handle& values) {
  std::vector<IterVar> out;
  if (py::isinstance<IterVar>(values)) {
    out.push_back(values.cast<IterVar>());
  } else {
    for (const py::handle& v : values) out.push_back(v.cast<IterVar>());
  }
  return out;
}

// Python's arithmetic and comparison operators on `cls`, whose values convert by `ToExpr`.
template <typename Class>
void AddOperators(Class& cls) {
  using Binary = Expr (*)(Expr, Expr);
  auto both = [&cls](const char* name, const char* reflected, Binary op) {
    cls.def(name,
            [op](const py::object& a, const py::object& b) { return op(ToExpr(a), ToExpr(b)); });
    cls.def(reflected,
            [op](const py::object& a, const py::object& b) { return op(ToExpr(b), ToExpr(a)); });
  };
  both("__add__", "__radd__", [](Expr a, Expr b) { return a + b; });
  both("__sub__", "__rsub__", [](Expr a, Expr b) { return a - b; });
  both("__mul__", "__rmul__", [](Expr a, Expr b) { return a * b; });
  both("__truediv__", "__rtruediv__", [](Expr a, Expr b) { return a / b; });
  both("__floordiv__", "__rfloordiv__", [](Expr a, Expr b) { return ir::floordiv(a, b); });
  both("__mod__", "__rmod__", [](Expr a, Expr b) { return ir::floormod(a, b); });
  cls.def("__neg__", [](const py::object& a) { return -ToExpr(a); });
  cls.def("__lt__", [](const py::object& a, const py::object& b) { return ToExpr(a) < ToExpr(b); });
  cls.def("__le__",
          [](const py::object& a, const py::object& b) { return ToExpr(a) <= ToExpr(b); });
  cls.def("__gt__", [](const py::object& a, const py::object& b) { return ToExpr(a) > ToExpr(b); });
  cls.def("__ge__",
          [](const py::object& a, const py::object& b) { return ToExpr(a) >= ToExpr(b); });
  // `==` builds an expression; Python's own equality of nodes is `same_as`.
  cls.def("equal", [](const py::object& a, const py::object& b) { return ToExpr(a) == ToExpr(b); });
  cls.def("same_as",
          [](const py::object& a, const py::object& b) { return ToExpr(a).same_as(ToExpr(b)); });
  cls.def("__bool__", [](const py::object&) -> bool {
    throw py::type_error("an expression has no truth value; use te.if_then_else or te.all");
  });
}

// The tensor `t` at `indices` (a tuple of expressions, or one).
Expr Index(const te::Tensor& t, const py::object& indices) {
  std::vector<Expr> at = ToExprs(indices);
  if (at.size() != t.ndim()) {
    throw py::index_error("tensor '" + t.name() + "' has " + std::to_string(t.ndim()) +
                          " dimensions, indexed with " + std::to_string(at.size()));
  }
  return t(at);
}

te::Tensor Compute(const py::object& shape, const py::function& fcompute, const std::string& name,
                   const std::string& tag) {
  const std::vector<Expr> extents = ToExprs(shape);
  return te::compute(
      extents,
      [&](const std::vector<Var>& vars) {
        py::tuple args(vars.size());
        for (size_t i = 0; i < vars.size(); ++i) args[i] = py::cast(vars[i]);
        return ToExpr(fcompute(*args));
      },
      name, tag);
}

using Reduction = Expr (*)(Expr, const std::vector<IterVar>&, Expr);

void AddReduction(py::module_& m, const char* name, Reduction reduce, const char* doc) {
  m.def(
      name,
      [reduce](const py::object& source, const py::object& axis, const py::object& where) {
        return reduce(ToExpr(source), ToIterVars(axis), where.is_none() ? Expr() : ToExpr(where));
      },
      py::arg("source"), py::arg("axis"), py::arg("where") = py::none(), doc);
}

// The operation behind a tensor, for `tensor.op.axis` and `tensor.op.reduce_axis`.
struct OpView {
  te::Tensor tensor;
  std::vector<IterVar> Axes(bool reduce) const {
    const auto* compute = tensor.op().as<te::ComputeOpNode>();
    if (!compute) return {};
    return reduce ? compute->reduce_axis : compute->axis;
  }
};

}  // namespace

void BindTensorExpressions(py::module_& m) {
  py::class_<Expr> expr(m, "Expr", "An expression of the tensor IR.");
  expr.def("__repr__", [](const Expr& e) { return ir::ToText(e); })
      .def_property_readonly("dtype", [](const Expr& e) { return ir::ToString(e->dtype); });
  AddOperators(expr);
  py::class_<Var, Expr>(m, "Var", "A variable: an index of a compute, or a free variable.")
      .def(py::init([](const std::string& name, const std::string& dtype) {
             return Var(name, ir::ParseDataType(dtype));
           }),
           py::arg("name") = "v", py::arg("dtype") = "int32")
      .def_property_readonly("name", [](const Var& v) { return v->name_hint; });
  py::class_<IterVar> iter_var(m, "IterVar", "A loop of a stage, or a reduction axis.");
  iter_var.def_property_readonly("var", [](const IterVar& iv) { return iv->var; })
      .def("__repr__", [](const IterVar& iv) { return "IterVar(" + iv->var->name_hint + ")"; });
  AddOperators(iter_var);

  py::class_<OpView>(m, "Operation")
      .def_property_readonly("name", [](const OpView& o) { return o.tensor.name(); })
      .def_property_readonly("axis", [](const OpView& o) { return o.Axes(false); })
      .def_property_readonly("reduce_axis", [](const OpView& o) { return o.Axes(true); });
  py::class_<te::Tensor>(m, "Tensor", "A tensor: a placeholder or the output of a compute.")
      .def_property_readonly("name", &te::Tensor::name)
      .def_property_readonly("shape", &te::Tensor::shape)
      .def_property_readonly("ndim", &te::Tensor::ndim)
      .def_property_readonly("dtype", [](const te::Tensor& t) { return ir::ToString(t.dtype()); })
      .def_property_readonly("op", [](const te::Tensor& t) { return OpView{t}; })
      .def("__getitem__", &Index)
      .def("__call__",
           [](const te::Tensor& t, const py::args& indices) { return Index(t, indices); })
      .def("__repr__", [](const te::Tensor& t) { return "Tensor(" + t.name() + ")"; });

  m.def(
      "placeholder",
      [](const py::object& shape, const std::string& dtype, const std::string& name) {
        return te::placeholder(ToExprs(shape), ir::ParseDataType(dtype), name);
      },
      py::arg("shape"), py::arg("dtype") = "float32", py::arg("name") = "placeholder",
      "An input tensor of `shape` and `dtype`.");
  m.def("compute", &Compute, py::arg("shape"), py::arg("fcompute"), py::arg("name") = "compute",
        py::arg("tag") = "",
        "A tensor whose element at the indices is fcompute(*indices); a reduction (te.sum, ...) "
        "must be the body's top level.");
  m.def(
      "reduce_axis",
      [](const py::object& dom, const std::string& name) {
        if (py::isinstance<py::tuple>(dom) || py::isinstance<py::list>(dom)) {
          std::vector<Expr> bounds = ToExprs(dom);
          if (bounds.size() != 2) throw py::value_error("reduce_axis: expected (begin, end)");
          return te::reduce_axis(ir::Range::FromMinExtent(bounds[0], bounds[1] - bounds[0]), name);
        }
        return te::reduce_axis(ToExpr(dom), name);
      },
      py::arg("dom"), py::arg("name") = "rv", "A reduction axis over (begin, end) or [0, extent).");
  AddReduction(m, "sum", &te::sum, "The sum of `source` over the reduction axes `axis`.");
  AddReduction(m, "max", &te::max, "The maximum of `source` over `axis`.");
  AddReduction(m, "min", &te::min, "The minimum of `source` over `axis`.");
  AddReduction(m, "prod", &te::prod, "The product of `source` over `axis`.");
  m.def("if_then_else", [](const py::object& c, const py::object& t, const py::object& f) {
    return ir::if_then_else(ToExpr(c), ToExpr(t), ToExpr(f));
  });
  m.def("select", [](const py::object& c, const py::object& t, const py::object& f) {
    return ir::select(ToExpr(c), ToExpr(t), ToExpr(f));
  });
  m.def("maximum",
        [](const py::object& a, const py::object& b) { return ir::max(ToExpr(a), ToExpr(b)); });
  m.def("minimum",
        [](const py::object& a, const py::object& b) { return ir::min(ToExpr(a), ToExpr(b)); });
  m.def("cast", [](const py::object& x, const std::string& dtype) {
    return ir::cast(ir::ParseDataType(dtype), ToExpr(x));
  });
  m.def(
      "const",
      [](double value, const std::string& dtype) {
        return ir::cast(ir::ParseDataType(dtype), Expr(static_cast<float>(value)));
      },
      py::arg("value"), py::arg("dtype") = "float32");
  using Unary = Expr (*)(Expr);
  for (const auto& [name, fn] :
       std::vector<std::pair<const char*, Unary>>{{"exp", &ir::exp},
                                                  {"log", &ir::log},
                                                  {"sqrt", &ir::sqrt},
                                                  {"tanh", &ir::tanh},
                                                  {"sigmoid", &ir::sigmoid},
                                                  {"abs", &ir::abs},
                                                  {"floor", &ir::floor},
                                                  {"ceil", &ir::ceil},
                                                  {"round", &ir::round},
                                                  {"erf", &ir::erf}}) {
    m.def(name, [fn = fn](const py::object& x) { return fn(ToExpr(x)); });
  }
  m.def("power",
        [](const py::object& x, const py::object& y) { return ir::pow(ToExpr(x), ToExpr(y)); });

  py::class_<te::Stage>(m, "Stage", "The loops of one compute, and what the schedule did to them.")
      .def_property_readonly("name", &te::Stage::name)
      .def(
          "split",
          [](te::Stage& s, const IterVar& parent, const py::object& factor,
             const py::object& nparts) {
            if (factor.is_none() == nparts.is_none()) {
              throw py::value_error("split: give factor or nparts, not both or neither");
            }
            auto [outer, inner] = factor.is_none() ? s.split_nparts(parent, ToExpr(nparts))
                                                   : s.split(parent, ToExpr(factor));
            return py::make_tuple(outer, inner);
          },
          py::arg("parent"), py::arg("factor") = py::none(), py::arg("nparts") = py::none())
      .def("fuse", &te::Stage::fuse)
      .def("reorder", [](te::Stage& s, const py::args& order) { s.reorder(ToIterVars(order)); })
      .def(
          "tile",
          [](te::Stage& s, const IterVar& x, const IterVar& y, const py::object& x_factor,
             const py::object& y_factor) {
            auto [xo, yo, xi, yi] = s.tile(x, y, ToExpr(x_factor), ToExpr(y_factor));
            return py::make_tuple(xo, yo, xi, yi);
          },
          py::arg("x_parent"), py::arg("y_parent"), py::arg("x_factor"), py::arg("y_factor"))
      .def("compute_at", &te::Stage::compute_at)
      .def("compute_inline", &te::Stage::compute_inline)
      .def("compute_root", &te::Stage::compute_root)
      .def("vectorize", &te::Stage::vectorize)
      .def("unroll", &te::Stage::unroll)
      .def("parallel", &te::Stage::parallel)
      .def(
          "pragma",
          [](te::Stage& s, const IterVar& iv, const std::string& key, const py::object& value) {
            s.pragma(iv, key, ToExpr(value));
          },
          py::arg("iv"), py::arg("key"), py::arg("value") = 1)
      .def("prefetch", &te::Stage::prefetch)
      .def("bind", &te::Stage::bind)
      .def("storage_align", &te::Stage::storage_align);
  py::class_<te::Schedule>(m, "Schedule", "How the computes of some outputs are looped.")
      .def("__getitem__", [](const te::Schedule& s, const te::Tensor& t) { return s[t]; })
      .def("cache_read", &te::Schedule::cache_read)
      .def("cache_write", &te::Schedule::cache_write)
      .def("rfactor", &te::Schedule::rfactor, py::arg("tensor"), py::arg("axis"),
           py::arg("factor_axis") = 0);
  m.def(
      "create_schedule",
      [](const py::object& outputs) {
        std::vector<te::Tensor> list;
        if (py::isinstance<te::Tensor>(outputs)) {
          list.push_back(outputs.cast<te::Tensor>());
        } else {
          for (const py::handle& t : outputs) list.push_back(t.cast<te::Tensor>());
        }
        return te::create_schedule(list);
      },
      py::arg("outputs"), "A schedule with one root stage per compute reachable from `outputs`.");
}

}  // namespace python
}  // namespace tessera
