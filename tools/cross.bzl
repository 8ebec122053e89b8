"""Cross-builds a C++ binary for aarch64 or armv7 with Debian's cross toolchains and target libraries.

`aarch64_cc_binary` compiles the sources of its host cc_library deps (collected by an aspect, so the
source lists are never repeated) one action per file with aarch64-linux-gnu-g++, and links two
binaries: NAME (against Debian's arm64 shared libraries) and NAME-static (mostly static: only libc,
libm, libdl and libpthread stay dynamic, so the binary runs on a board without those libraries and
needs glibc alone). With `android = True` also NAME-android: wholly static (no program
interpreter, no shared library), for phones, whose C library is not glibc; such a program loads
kernels with the runtime's own loader (runtime/elf_loader.h). `armv7_cc_binary` does the same
with arm-linux-gnueabihf-g++ for 32-bit boards (NAME-static and NAME-android only). Generated protobuf/gRPC code comes from the host's protoc and grpc_cpp_plugin;
the link refuses versions that differ from the arm64 libraries'. Without the cross toolchain or the
arm64 libraries every output is a placeholder starting with "SKIP:", so `bazel build //...` still
works and the tests that use it skip.
"""

load("//tools:cc.bzl", "TESSERA_COPTS")

_CcSourcesInfo = provider(fields = ["srcs", "hdrs"])

def _files(attr):
    return [f for t in attr for f in t.files.to_list()]

def _sources_aspect_impl(target, ctx):
    own_srcs = []
    own_hdrs = []
    if ctx.rule.kind == "cc_library" or ctx.rule.kind == "cc_binary":
        for f in _files(getattr(ctx.rule.attr, "srcs", [])):
            (own_srcs if f.extension in ["cc", "cpp"] else own_hdrs).append(f)
        own_hdrs += _files(getattr(ctx.rule.attr, "hdrs", []))
    deps = [d[_CcSourcesInfo] for d in getattr(ctx.rule.attr, "deps", []) if _CcSourcesInfo in d]
    return [_CcSourcesInfo(
        srcs = depset(own_srcs, transitive = [d.srcs for d in deps]),
        hdrs = depset(own_hdrs, transitive = [d.hdrs for d in deps]),
    )]

_sources_aspect = aspect(implementation = _sources_aspect_impl, attr_aspects = ["deps"])

def _cross_cc_binary_impl(ctx):
    infos = [d[_CcSourcesInfo] for d in ctx.attr.deps]
    srcs = depset(transitive = [i.srcs for i in infos]).to_list()
    hdrs = depset(transitive = [i.hdrs for i in infos])
    objects = []
    for src in srcs:
        obj = ctx.actions.declare_file("_%s_objs/%s/%s.o" % (ctx.attr._arch, ctx.label.name, src.short_path))
        # Our own code gets the house warnings; generated protobuf code does not.
        copts = TESSERA_COPTS if src.is_source else []
        ctx.actions.run(
            executable = ctx.executable._tool,
            arguments = [ctx.attr._arch, "compile", obj.path, src.path, "-I.", "-I" + ctx.bin_dir.path] + copts,
            inputs = depset([src], transitive = [hdrs]),
            outputs = [obj],
            mnemonic = "Aarch64Compile",
            use_default_shell_env = True,
            progress_message = "Compiling %s for %s" % (src.short_path, ctx.attr._arch),
        )
        objects.append(obj)
    outputs = []
    linkages = [("static", ctx.label.name + "-static")]
    if ctx.attr._dynamic:
        linkages.insert(0, ("dynamic", ctx.label.name))
    if ctx.attr.android:
        linkages.append(("full", ctx.label.name + "-android"))
    for linkage, name in linkages:
        out = ctx.actions.declare_file(name)
        ctx.actions.run(
            executable = ctx.executable._tool,
            arguments = [ctx.attr._arch, "link", out.path, linkage, ctx.attr.pkg_config] + [o.path for o in objects],
            inputs = objects,
            outputs = [out],
            mnemonic = "Aarch64Link",
            use_default_shell_env = True,
            progress_message = "Linking %s (%s) for %s" % (name, linkage, ctx.attr._arch),
        )
        outputs.append(out)
    return [DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs))]

def _cross_rule(arch, dynamic):
    return rule(
        implementation = _cross_cc_binary_impl,
        attrs = {
            "deps": attr.label_list(aspects = [_sources_aspect]),
            "pkg_config": attr.string(doc = "pkg-config modules linked (space separated)"),
            "android": attr.bool(doc = "also link NAME-android, wholly static"),
            "_arch": attr.string(default = arch),
            "_dynamic": attr.bool(default = dynamic),
            "_tool": attr.label(
                default = "//tools/cross:cross_gcc.sh",
                executable = True,
                cfg = "exec",
                allow_single_file = True,
            ),
        },
    )

aarch64_cc_binary = _cross_rule("aarch64", True)

# armv7 (32-bit boards): NAME-static and, with `android = True`, NAME-android; no NAME linked
# against shared libraries, since tools/setup.sh unpacks Debian's armhf static libraries only.
armv7_cc_binary = _cross_rule("armv7", False)
