#include "compiler/task/blocked_layout.h"

#include "compiler/support/error.h"

namespace tessera {
namespace task {
namespace {

void Check(const std::vector<float>& values, const NCHWDims& d, int64_t bn) {
  TESSERA_INTERNAL_CHECK(bn > 0 && d.c % bn == 0) << "block " << bn << " does not divide " << d.c;
  TESSERA_INTERNAL_CHECK(static_cast<int64_t>(values.size()) == d.n * d.c * d.h * d.w)
      << "array of " << values.size() << " values for " << d.n << "x" << d.c << "x" << d.h << "x"
      << d.w;
}

// Index of element (b, ch, y, x) in NCHW[bn]c.
int64_t BlockedIndex(const NCHWDims& d, int64_t bn, int64_t b, int64_t ch, int64_t y, int64_t x) {
  return ((((b * (d.c / bn) + ch / bn) * d.h + y) * d.w + x) * bn) + ch % bn;
}

// Calls visit(plain, blocked) with the NCHW and NCHW[bn]c indices of every element, in NCHW
// order: both directions of the layout change walk the tensor the same way.
template <typename Visit>
void ForEachBlocked(const NCHWDims& d, int64_t bn, Visit visit) {
  for (int64_t b = 0, i = 0; b < d.n; ++b) {
    for (int64_t ch = 0; ch < d.c; ++ch) {
      for (int64_t y = 0; y < d.h; ++y) {
        for (int64_t x = 0; x < d.w; ++x) visit(i++, BlockedIndex(d, bn, b, ch, y, x));
      }
    }
  }
}

// A byte's two's complement (of a whole number in [-128, 255]) in byte `b` of a word.
uint32_t InByte(float value, int64_t b) {
  return uint32_t{static_cast<uint8_t>(static_cast<int32_t>(value))} << (8 * b);
}

// Every four consecutive bytes of `bytes` as one little-endian word.
std::vector<int32_t> WordsOfBytes(const std::vector<float>& bytes) {
  std::vector<int32_t> out(bytes.size() / 4);
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t word = 0;
    for (int64_t b = 0; b < 4; ++b) word |= InByte(bytes[4 * i + b], b);
    out[i] = static_cast<int32_t>(word);
  }
  return out;
}

}  // namespace

std::vector<float> ToNCHWc(const std::vector<float>& plain, const NCHWDims& d, int64_t bn) {
  Check(plain, d, bn);
  std::vector<float> out(plain.size());
  ForEachBlocked(d, bn, [&](int64_t i, int64_t blocked) { out[blocked] = plain[i]; });
  return out;
}

std::vector<float> FromNCHWc(const std::vector<float>& blocked, const NCHWDims& d, int64_t bn) {
  Check(blocked, d, bn);
  std::vector<float> out(blocked.size());
  ForEachBlocked(d, bn, [&](int64_t i, int64_t at) { out[i] = blocked[at]; });
  return out;
}

std::vector<float> ToOIHWio(const std::vector<float>& kernel, const NCHWDims& d, int64_t ic_bn,
                            int64_t oc_bn) {
  Check(kernel, d, ic_bn);
  TESSERA_INTERNAL_CHECK(oc_bn > 0 && d.n % oc_bn == 0)
      << "block " << oc_bn << " does not divide " << d.n;
  std::vector<float> out(kernel.size());
  const int64_t k = d.n, c = d.c, r = d.h, s = d.w;
  for (int64_t o = 0, i = 0; o < k; ++o) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t y = 0; y < r; ++y) {
        for (int64_t x = 0; x < s; ++x) {
          int64_t to =
              ((((o / oc_bn * (c / ic_bn) + ch / ic_bn) * r + y) * s + x) * ic_bn + ch % ic_bn) *
                  oc_bn +
              o % oc_bn;
          out[to] = kernel[i++];
        }
      }
    }
  }
  return out;
}

std::vector<int32_t> ToNCHWcWords(const std::vector<float>& plain, const NCHWDims& d,
                                  int64_t ic_words) {
  // NCHW[4 ic_words]c holds each word's four channels next to each other.
  return WordsOfBytes(ToNCHWc(plain, d, 4 * ic_words));
}

std::vector<int32_t> ToOIHWioWords(const std::vector<float>& kernel, const NCHWDims& d,
                                   int64_t ic_words, int64_t oc_bn) {
  const int64_t ic_bn = 4 * ic_words;
  Check(kernel, d, ic_bn);
  TESSERA_INTERNAL_CHECK(oc_bn > 0 && d.n % oc_bn == 0)
      << "block " << oc_bn << " does not divide " << d.n;
  std::vector<uint32_t> words(kernel.size() / 4, 0);
  const int64_t k = d.n, c = d.c, r = d.h, s = d.w;
  for (int64_t o = 0, i = 0; o < k; ++o) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t y = 0; y < r; ++y) {
        for (int64_t x = 0; x < s; ++x) {
          const int64_t word =
              ((((o / oc_bn * (c / ic_bn) + ch / ic_bn) * r + y) * s + x) * ic_words +
               ch % ic_bn / 4) *
                  oc_bn +
              o % oc_bn;
          words[word] |= InByte(kernel[i++], ch % 4);
        }
      }
    }
  }
  return std::vector<int32_t>(words.begin(), words.end());
}

std::vector<int32_t> ToRowWords(const std::vector<float>& a, int64_t m, int64_t k) {
  TESSERA_INTERNAL_CHECK(k % 4 == 0 && static_cast<int64_t>(a.size()) == m * k)
      << "cannot pack " << a.size() << " bytes as " << m << "x" << k << " in words of four";
  return WordsOfBytes(a);
}

std::vector<int32_t> ToColumnBlockWords(const std::vector<float>& w, int64_t n, int64_t k,
                                        int64_t bn) {
  TESSERA_INTERNAL_CHECK(bn > 0 && n % bn == 0) << "block " << bn << " does not divide " << n;
  const std::vector<int32_t> rows = ToRowWords(w, n, k);  // [n, k / 4]
  const int64_t words = k / 4;
  std::vector<int32_t> out(rows.size());
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t col = 0; col < words; ++col) {
      out[(row / bn * words + col) * bn + row % bn] = rows[row * words + col];
    }
  }
  return out;
}

std::vector<float> ToColumnBlocks(const std::vector<float>& w, int64_t n, int64_t k, int64_t bn) {
  TESSERA_INTERNAL_CHECK(bn > 0 && n % bn == 0 && static_cast<int64_t>(w.size()) == n * k)
      << "cannot pack " << w.size() << " weights as " << n << "x" << k << " in blocks of " << bn;
  std::vector<float> out(w.size());
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t col = 0; col < k; ++col) {
      out[(row / bn * k + col) * bn + row % bn] = w[row * k + col];
    }
  }
  return out;
}

}  // namespace task
}  // namespace tessera
