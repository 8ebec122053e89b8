/// \file
/// A dense, row-major matrix of float features: one row per candidate configuration.
#ifndef TESSERA_TUNER_COST_MODEL_FEATURE_MATRIX_H_
#define TESSERA_TUNER_COST_MODEL_FEATURE_MATRIX_H_

#include <cstdint>
#include <vector>

namespace tessera {
namespace tuner {

/// Rows of equal width; an empty matrix has width 0 until its first row.
class FeatureMatrix {
 public:
  /// An empty matrix.
  FeatureMatrix() = default;
  /// Appends a row; throws `UserError` when its width differs from the earlier rows'.
  void AddRow(const std::vector<float>& row);
  /// Number of rows.
  int64_t rows() const { return cols_ == 0 ? 0 : static_cast<int64_t>(data_.size()) / cols_; }
  /// Width of every row.
  int64_t cols() const { return cols_; }
  /// The row-major values.
  const std::vector<float>& data() const { return data_; }
  /// Appends every row of `other`; throws `UserError` when the widths differ.
  void Append(const FeatureMatrix& other);
  /// The rows listed in `indices`, in that order.
  FeatureMatrix Select(const std::vector<int64_t>& indices) const;

 private:
  int64_t cols_ = 0;
  std::vector<float> data_;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_COST_MODEL_FEATURE_MATRIX_H_
