#!/usr/bin/env python3
"""Compiles one @triton.jit kernel ahead of time, for kbench::code_object (cmake/kbench.cmake's
kbench_add_triton_kernel runs it at build time): writes the code object (a cubin on NVIDIA, an hsaco on AMD)
and a C++ header with what a launch of it needs.

    kbench-triton-compile.py --source k.py --kernel add_relu_kernel \
        --signature 'x_ptr=*fp32,y_ptr=*fp32,n=i32' --constexprs BLOCK=1024 --num-warps 4 \
        --target cuda:90 --output k.cubin --header k.h --namespace k

--signature gives every parameter that is not a constexpr, with Triton's type names (*fp32, i32, fp32, ...);
--constexprs the others' values. The header (namespace --namespace) holds the code object's path, the kernel's
name, its target (sm_90, gfx90a: for a resource bound), the block (num_warps times the warp size), the shared memory, the constexprs and launch(): the
kernel's own arguments, then the pointers that Triton 3.3 and later append to the kernel's parameters (its
global scratch, and since 3.5 or so a profiling buffer). How many there are is read from the compiled
kernel's own parameter list, not from the version, since it changed between versions.
"""
import argparse
import importlib.util
import re
import sys
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget


def pairs(text):
    """'a=x,b=y' as {'a': 'x', 'b': 'y'}, in order."""
    out = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep:
            sys.exit(f"kbench-triton-compile: '{item}' is not name=value")
        out[name.strip()] = value.strip()
    return out


def number(text):
    try:
        return int(text)
    except ValueError:
        return float(text)


def load_kernel(path, name):
    path = Path(path).resolve()
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, name):
        sys.exit(f"kbench-triton-compile: no kernel '{name}' in {path}")
    return getattr(module, name)


def target_of(text):
    backend, _, arch = text.partition(":")
    if backend == "cuda":
        return GPUTarget("cuda", int(arch), 32)
    if backend == "hip":
        return GPUTarget("hip", arch, 64 if arch.startswith("gfx9") else 32)  # CDNA and GCN run waves of 64
    sys.exit(f"kbench-triton-compile: target '{text}' is neither cuda:<sm> nor hip:<gfx>")


def target_name(target):
    """The code object's target as kbench's `resources` names it: sm_90, gfx90a (without its features)."""
    return f"sm_{target.arch}" if target.backend == "cuda" else str(target.arch).split(":")[0]


def compile_kernel(fn, signature, constexprs, target, num_warps):
    missing = [a for a in fn.arg_names if a not in signature and a not in constexprs]
    unknown = [a for a in list(signature) + list(constexprs) if a not in fn.arg_names]
    if missing or unknown:
        sys.exit(f"kbench-triton-compile: {fn.arg_names} takes {missing or 'no more'} too, and no {unknown or '...'}")
    try:  # Triton 3.2 and later: every parameter named, the constexprs typed so
        source = triton.compiler.ASTSource(fn=fn, signature={a: signature.get(a, "constexpr") for a in fn.arg_names},
                                           constexprs=constexprs)
    except TypeError:  # Triton 3.0 and 3.1: by index, the constants apart
        index = {a: i for i, a in enumerate(fn.arg_names)}
        source = triton.compiler.ASTSource(fn=fn, signature={index[a]: t for a, t in signature.items()},
                                           constants={index[a]: v for a, v in constexprs.items()})
    return triton.compile(source, target=target, options={"num_warps": num_warps})


def parameter_count(llir, name):
    """The parameters of `define ... @name(...)` in the kernel's LLVM IR (types hold parentheses too)."""
    match = re.search(r"define[^\n]*@" + re.escape(name) + r"\(", llir)
    if not match:
        sys.exit(f"kbench-triton-compile: no definition of {name} in the LLVM IR")
    depth, count, empty = 1, 1, True
    for ch in llir[match.end():]:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        elif ch == "," and depth == 1:
            count += 1
        if not ch.isspace() and depth >= 1:
            empty = False
    return 0 if empty else count


def cpp_value(value):
    return f"{value}" if isinstance(value, int) else repr(float(value))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for option in ("--source", "--kernel", "--signature", "--target", "--output", "--header", "--namespace"):
        parser.add_argument(option, required=True)
    parser.add_argument("--constexprs", default="")
    parser.add_argument("--num-warps", type=int, default=4)
    args = parser.parse_args()

    fn = load_kernel(args.source, args.kernel)
    signature = pairs(args.signature)
    constexprs = {k: number(v) for k, v in pairs(args.constexprs).items()}
    target = target_of(args.target)
    compiled = compile_kernel(fn, signature, constexprs, target, args.num_warps)
    meta = compiled.metadata
    binary = compiled.asm["cubin" if target.backend == "cuda" else "hsaco"]
    Path(args.output).write_bytes(binary if isinstance(binary, bytes) else binary.encode())

    extra = parameter_count(compiled.asm["llir"], meta.name) - len(signature)
    if extra < 0 or extra > 2:
        sys.exit(f"kbench-triton-compile: {meta.name} has {extra} parameters beyond the {len(signature)} given: "
                 "not the global and profile scratch pointers that kbench knows")
    global_scratch = getattr(meta, "global_scratch_size", 0) or 0
    profile_scratch = getattr(meta, "profile_scratch_size", 0) or 0
    if profile_scratch > 0:
        sys.exit(f"kbench-triton-compile: {meta.name} asks for {profile_scratch} bytes of profiling scratch "
                 "(Triton's instrumentation): compile it without")
    block = meta.num_warps * target.warp_size
    appended = ["global_scratch", "static_cast<void*>(nullptr)"][:extra]
    lines = [
        f"// generated by kbench-triton-compile.py from {Path(args.source).name} (Triton {triton.__version__}, "
        f"{target.backend} {target.arch}): what a launch of {meta.name} needs",
        "#pragma once",
        "",
        "#include <cstddef>",
        "",
        f"namespace {args.namespace} {{",
        f"constexpr const char* code_object = \"{Path(args.output).resolve()}\";",
        f"constexpr const char* kernel_name = \"{meta.name}\";",
        f"constexpr const char* target = \"{target_name(target)}\";  // as `resources` names it, for a bound",
        f"constexpr unsigned int block_threads = {block};  // {meta.num_warps} warps of {target.warp_size}",
        f"constexpr unsigned int shared_bytes = {meta.shared};",
        f"constexpr std::size_t global_scratch_bytes = {global_scratch};  // per program (block); 0: a null pointer",
        f"constexpr int appended_pointers = {extra};  // after the kernel's own parameters",
    ]
    lines += [f"constexpr auto {name} = {cpp_value(value)};" for name, value in constexprs.items()]
    lines += [
        "",
        "// One launch: the kernel's own arguments, then the pointers Triton appends (the global scratch, then a",
        "// null profiling buffer), as Triton's launcher passes them.",
        "template <class Kernel, class Scratch, class... Args>",
        "void launch(const Kernel& kernel, dim3 grid, hipStream_t stream, const Scratch& global_scratch,",
        "            const Args&... args) {",
        "  (void)global_scratch;",
        "  kernel.launch(grid, dim3(block_threads), shared_bytes, stream, " +
        ", ".join(["args..."] + appended) + ");",
        "}",
        f"}}  // namespace {args.namespace}",
        "",
    ]
    Path(args.header).write_text("\n".join(lines))


if __name__ == "__main__":
    main()
