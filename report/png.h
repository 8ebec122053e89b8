/// \file
/// An SVG document rendered to a PNG file, with Debian's librsvg and cairo (`tessera log curve
/// -o curve.png`: the curve's SVG, drawn the same way as `-o curve.svg`).
#ifndef TESSERA_REPORT_PNG_H_
#define TESSERA_REPORT_PNG_H_

#include <string>

namespace tessera {
namespace report {

/// Renders `svg` at its own size, scaled by `scale`, onto a white PNG at `path`. Throws
/// `UserError` naming the path when the file cannot be written, `InternalError` when the SVG
/// does not parse (the caller wrote it).
void WriteSvgAsPng(const std::string& svg, const std::string& path, double scale = 1.0);

}  // namespace report
}  // namespace tessera

#endif  // TESSERA_REPORT_PNG_H_
