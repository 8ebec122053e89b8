// Running a model of batch buckets: choosing the bucket, padding the last chunk's rows, gathering
// the outputs' rows.
#include "deploy/batch_run.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "runtime/data_type.h"
#include "runtime/error.h"

namespace tessera {
namespace deploy {
namespace {

runtime::ExecTensor AtBatch(const TensorSignature& t, int64_t n) {
  TensorSignature at = t.AtBatch(n);
  runtime::ExecTensor out;
  out.name = std::move(at.name);
  out.dtype = at.dtype;
  out.shape = std::move(at.shape);
  return out;
}

// Bytes of one batch row of `shape` below `axis`, and the number of blocks of rows above it.
struct RowLayout {
  size_t row_bytes = 0;
  int64_t blocks = 1;
};

RowLayout RowsOf(const std::vector<int64_t>& shape, int axis, DLDataType dtype) {
  RowLayout layout;
  int64_t inner = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int>(d) < axis) layout.blocks *= shape[d];
    if (static_cast<int>(d) > axis) inner *= shape[d];
  }
  layout.row_bytes = static_cast<size_t>(inner) * ((dtype.bits * dtype.lanes + 7) / 8);
  return layout;
}

// Copies rows [from, from + count) of `src`'s batch axis to rows [to, to + count) of `dst`'s; the
// arrays differ only in that axis's extent.
void CopyRows(const runtime::NDArray& src, int64_t from, runtime::NDArray& dst, int64_t to,
              int64_t count, int axis) {
  const RowLayout layout = RowsOf(src.Shape(), axis, src.DataType());
  const int64_t src_rows = src.Shape()[static_cast<size_t>(axis)];
  const int64_t dst_rows = dst.Shape()[static_cast<size_t>(axis)];
  const char* s = src.Data<char>();
  char* d = dst.Data<char>();
  for (int64_t block = 0; block < layout.blocks; ++block) {
    std::memcpy(d + (block * dst_rows + to) * static_cast<int64_t>(layout.row_bytes),
                s + (block * src_rows + from) * static_cast<int64_t>(layout.row_bytes),
                static_cast<size_t>(count) * layout.row_bytes);
  }
}

}  // namespace

BatchRun::BatchRun(LoadedModel& model)
    : model_(model),
      buckets_(model.header.batch_buckets),
      padded_(model.header.batch_buckets.size()) {}

std::vector<int> BatchRun::batch_axes() const {
  std::vector<int> axes(static_cast<size_t>(NumInputs()), -1);
  if (batched()) {
    for (size_t i = 0; i < axes.size(); ++i) axes[i] = model_.header.inputs[i].batch_axis;
  }
  return axes;
}

std::vector<runtime::ExecTensor> BatchRun::InputsAt(int64_t n) const {
  return At(n, model_.header.inputs, NumInputs(),
            [&](int i) { return model_.executor.InputInfo(i); });
}

std::vector<runtime::ExecTensor> BatchRun::OutputsAt(int64_t n) const {
  return At(n, model_.header.outputs, NumOutputs(),
            [&](int i) { return model_.executor.OutputInfo(i); });
}

template <typename InfoOf>
std::vector<runtime::ExecTensor> BatchRun::At(int64_t n, const std::vector<TensorSignature>& list,
                                              int count, InfoOf info) const {
  std::vector<runtime::ExecTensor> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(batched() ? AtBatch(list[static_cast<size_t>(i)], n) : info(i));
  }
  return out;
}

int64_t BatchRun::BucketFor(int64_t n) const {
  for (int64_t b : buckets_) {
    if (b >= n) return b;
  }
  return buckets_.empty() ? 0 : buckets_.back();
}

size_t BatchRun::BucketIndex(int64_t bucket) const {
  return static_cast<size_t>(std::find(buckets_.begin(), buckets_.end(), bucket) -
                             buckets_.begin());
}

runtime::GraphExecutor& BatchRun::BucketExecutor(size_t index) {
  return index == 0 ? model_.executor : model_.other_buckets.at(index - 1);
}

void BatchRun::SetInputs(const std::vector<runtime::NDArray>& inputs) {
  if (inputs.size() != static_cast<size_t>(NumInputs())) {
    throw runtime::Error("the model has " + std::to_string(NumInputs()) + " inputs, " +
                         std::to_string(inputs.size()) + " were given");
  }
  if (!batched()) {
    for (int i = 0; i < NumInputs(); ++i) {
      model_.executor.SetInput(i, inputs[static_cast<size_t>(i)]);
    }
    return;
  }
  int64_t n = 0;
  std::string first;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSignature& t = model_.header.inputs[i];
    const runtime::NDArray& value = inputs[i];
    const size_t axis = static_cast<size_t>(t.batch_axis);
    const int64_t rows = value.NDim() == static_cast<int>(t.shape.size()) ? value.Shape()[axis] : 0;
    if (rows < 1 || value.Shape() != AtBatch(t, rows).shape ||
        runtime::operator!=(value.DataType(), t.dtype)) {
      throw runtime::Error("input '" + t.name + "' expects " + runtime::DataTypeToString(t.dtype) +
                           runtime::ShapeToString(AtBatch(t, 1).shape) +
                           " with any batch in dimension " + std::to_string(axis) + ", got " +
                           runtime::DataTypeToString(value.DataType()) +
                           runtime::ShapeToString(value.Shape()));
    }
    if (n != 0 && rows != n) {
      throw runtime::Error("input '" + t.name + "' has batch " + std::to_string(rows) +
                           ", input '" + first + "' " + std::to_string(n) +
                           ": every input takes the same batch");
    }
    n = rows;
    first = t.name;
  }
  inputs_ = inputs;
  batch_ = n;
  outputs_.clear();
  for (const runtime::ExecTensor& t : OutputsAt(n)) {
    outputs_.push_back(runtime::NDArray::Empty(t.shape, t.dtype, runtime::CPUDevice()));
  }
}

int BatchRun::Runs() const {
  if (!batched() || batch_ == 0) return 1;
  return static_cast<int>((batch_ + buckets_.back() - 1) / buckets_.back());
}

void BatchRun::Run() {
  if (!batched()) {
    model_.executor.Run();
    return;
  }
  if (batch_ == 0) throw runtime::Error("the model's inputs are not set");
  for (int64_t start = 0; start < batch_; start += buckets_.back()) {
    const int64_t rows = std::min(buckets_.back(), batch_ - start);
    const int64_t bucket = BucketFor(rows);
    const size_t index = BucketIndex(bucket);
    runtime::GraphExecutor& exec = BucketExecutor(index);
    std::vector<runtime::NDArray>& staged = padded_[index];
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const TensorSignature& t = model_.header.inputs[i];
      if (staged.size() <= i) {
        const runtime::ExecTensor at = AtBatch(t, bucket);
        staged.push_back(runtime::NDArray::Empty(at.shape, at.dtype, runtime::CPUDevice()));
      }
      // Padding rows are zero: finite values in every operator, whatever the model.
      if (rows < bucket) std::memset(staged[i].Data<char>(), 0, staged[i].NumBytes());
      CopyRows(inputs_[i], start, staged[i], 0, rows, t.batch_axis);
      exec.SetInput(static_cast<int>(i), staged[i]);
    }
    exec.Run();
    for (size_t o = 0; o < outputs_.size(); ++o) {
      CopyRows(exec.GetOutput(static_cast<int>(o)), 0, outputs_[o], start, rows,
               model_.header.outputs[o].batch_axis);
    }
  }
}

runtime::NDArray BatchRun::GetOutput(int i) const {
  if (!batched()) return model_.executor.GetOutput(i);
  if (outputs_.empty()) throw runtime::Error("the model has not run");
  return outputs_.at(static_cast<size_t>(i));
}

runtime::GraphExecutor& BatchRun::executor() {
  if (!batched()) return model_.executor;
  return BucketExecutor(
      BucketIndex(BucketFor(std::max<int64_t>(1, std::min(batch_, buckets_.back())))));
}

std::string BatchText(const BatchRun& run) {
  if (!run.batched()) return "";
  const int64_t bucket = run.BucketFor(run.batch());
  if (run.Runs() > 1) {
    return ", batch " + std::to_string(run.batch()) + " in " + std::to_string(run.Runs()) +
           " runs of bucket " + std::to_string(bucket) +
           (run.batch() % bucket == 0 || run.BucketFor(run.batch() % bucket) == bucket
                ? ""
                : " (the last on bucket " + std::to_string(run.BucketFor(run.batch() % bucket)) +
                      ")");
  }
  return ", batch " + std::to_string(run.batch()) + " on bucket " + std::to_string(bucket);
}

}  // namespace deploy
}  // namespace tessera
