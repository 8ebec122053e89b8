#include "tuner/cost_model/feature_matrix.h"

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {

void FeatureMatrix::AddRow(const std::vector<float>& row) {
  TESSERA_USER_CHECK(!row.empty()) << "feature rows must not be empty";
  if (cols_ == 0) cols_ = static_cast<int64_t>(row.size());
  TESSERA_USER_CHECK(static_cast<int64_t>(row.size()) == cols_)
      << "feature row " << rows() << " has " << row.size() << " values, the earlier rows have "
      << cols_;
  data_.insert(data_.end(), row.begin(), row.end());
}

void FeatureMatrix::Append(const FeatureMatrix& other) {
  if (other.rows() == 0) return;
  if (cols_ == 0) cols_ = other.cols_;
  TESSERA_USER_CHECK(other.cols_ == cols_)
      << "cannot append rows of " << other.cols_ << " features to rows of " << cols_;
  data_.insert(data_.end(), other.data_.begin(), other.data_.end());
}

FeatureMatrix FeatureMatrix::Select(const std::vector<int64_t>& indices) const {
  FeatureMatrix out;
  for (int64_t i : indices) {
    TESSERA_INTERNAL_CHECK(i >= 0 && i < rows()) << "row " << i << " of " << rows();
    out.AddRow(std::vector<float>(data_.begin() + i * cols_, data_.begin() + (i + 1) * cols_));
  }
  return out;
}

}  // namespace tuner
}  // namespace tessera
