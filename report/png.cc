#include "report/png.h"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <memory>

#include "common/error.h"

namespace tessera {
namespace report {
namespace {

struct SurfaceFree {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextFree {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
struct HandleFree {
  void operator()(RsvgHandle* h) const { g_object_unref(h); }
};

std::string TakeMessage(GError* error) {
  std::string message = error != nullptr ? error->message : "unknown error";
  if (error != nullptr) g_error_free(error);
  return message;
}

}  // namespace

void WriteSvgAsPng(const std::string& svg, const std::string& path, double scale) {
  GError* error = nullptr;
  std::unique_ptr<RsvgHandle, HandleFree> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
  if (!handle) throw InternalError("the SVG to render does not parse: " + TakeMessage(error));
  gdouble width = 0, height = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(handle.get(), &width, &height)) {
    throw InternalError("the SVG to render has no size in pixels");
  }
  std::unique_ptr<cairo_surface_t, SurfaceFree> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(width * scale + 0.5),
                                 static_cast<int>(height * scale + 0.5)));
  std::unique_ptr<cairo_t, ContextFree> cr(cairo_create(surface.get()));
  cairo_set_source_rgb(cr.get(), 1, 1, 1);
  cairo_paint(cr.get());
  const RsvgRectangle viewport{0, 0, width * scale, height * scale};
  if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error)) {
    throw InternalError("cannot render the SVG: " + TakeMessage(error));
  }
  cairo_surface_flush(surface.get());
  if (cairo_surface_write_to_png(surface.get(), path.c_str()) != CAIRO_STATUS_SUCCESS) {
    throw UserError("cannot write the picture '" + path + "'");
  }
}

}  // namespace report
}  // namespace tessera
