"""C++ rules for Tessera's own code: C++17 with warnings as errors (generated code is exempt)."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

TESSERA_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
]

def tessera_cc_library(name, copts = [], **kwargs):
    cc_library(name = name, copts = TESSERA_COPTS + copts, **kwargs)

def tessera_cc_binary(name, copts = [], **kwargs):
    cc_binary(name = name, copts = TESSERA_COPTS + copts, **kwargs)

def tessera_cc_test(name, copts = [], deps = [], size = "small", **kwargs):
    """A GoogleTest test; gtest_main is linked unless the test brings its own main."""
    cc_test(
        name = name,
        copts = TESSERA_COPTS + copts,
        deps = deps + ["//third_party:gtest_main"],
        size = size,
        **kwargs
    )

def embedded_text(name, src, header, symbol, namespaces):
    """Generates NAME.cc defining `extern const char SYMBOL[]` (declared in `header`, inside
    `namespaces`) as the text of `src`, a raw string literal; fails when the text holds the
    literal's delimiter."""
    native.genrule(
        name = name,
        srcs = [src],
        outs = [name + ".cc"],
        cmd = ("if grep -q ')tsr_embed\"' $<; then echo '$< holds )tsr_embed\"' >&2; exit 1; fi; " +
               "(echo '#include \"%s\"'; echo '%s'; " +
               "echo 'extern const char %s[] = R\"tsr_embed('; cat $<; echo ')tsr_embed\";'; " +
               "echo '%s') > $@") % (
            header,
            " ".join(["namespace %s {" % n for n in namespaces]),
            symbol,
            " ".join(["}" for n in namespaces]),
        ),
    )
