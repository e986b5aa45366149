#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_install.py: what `meson install` puts on a system, used as a user
would use it.

1. `meson install --destdir TMP` from this build directory.
2. Exactly the expected files are installed: each tool and its man page,
   libftf.so.VERSION with its soname (libftf.so.MAJOR) and the
   libftf.so -> libftf.so.MAJOR -> libftf.so.VERSION links, libftf.a,
   the public headers (and no others) under include/ftf/, libftf.pc, and
   the bash completion of ftf-bpf.
3. Each installed header compiles on its own (cc -Wall -Wextra -Werror,
   with pkg-config's --cflags only).
4. examples/self_trace.c, copied out of the tree, is built with plain cc
   and `pkg-config --cflags --libs libftf` (PKG_CONFIG_PATH into TMP) and
   run; its trace is checked with the installed ftf-dump --check and its
   records read back: the process and both threads named, STEPS "step"
   slices on the stepper thread. Without sanitizers it is also linked
   against libftf.a. In a sanitizer build the installed library carries
   the sanitizer: the uninstrumented example then runs with that build's
   ASan runtime preloaded, as any uninstrumented program using such a
   library must (linking libftf.a needs -fsanitize too, so it is left
   out there).
   The README's libftf examples (its ```c blocks) are built the same way
   and run in order with the argument myapp.fxt: the writer's trace is
   whole and holds its 10 "work" slices, and the reader prints them.
5. Every installed man page renders with `man -l --warnings` with nothing
   on stderr.
6. The installed completion, sourced in bash, completes ftf-bpf's options
   and -u function names with the installed ftf-bpf.

Arguments (from tests/install/meson.build): key=value pairs.
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

STEPS = 5


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, env=None, cwd=None, check=True):
    print("$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd,
                       timeout=300)
    if check and r.returncode != 0:
        fail(f"exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")
    return r


def args():
    a = dict(kv.split("=", 1) for kv in sys.argv[1:])
    for k in ("tools", "headers"):
        a[k] = [x for x in a[k].split(",") if x]
    return a


def expected_files(a):
    """Installed paths (absolute, as on the target system) -> kind."""
    version, major = a["version"], a["version"].split(".")[0]
    libdir, exp = a["libdir"], {}
    for t in a["tools"]:
        exp[os.path.join(a["bindir"], t)] = "exe"
        exp[os.path.join(a["mandir"], "man1", t + ".1")] = "file"
    for h in a["headers"]:
        exp[os.path.join(a["includedir"], "ftf", h)] = "file"
    exp[os.path.join(libdir, f"libftf.so.{version}")] = "file"
    exp[os.path.join(libdir, f"libftf.so.{major}")] = f"link libftf.so.{version}"
    exp[os.path.join(libdir, "libftf.so")] = f"link libftf.so.{major}"
    exp[os.path.join(libdir, "libftf.a")] = "file"
    exp[os.path.join(libdir, "pkgconfig", "libftf.pc")] = "file"
    if "ftf-bpf" in a["tools"]:
        exp[os.path.join(a["completionsdir"], "ftf-bpf")] = "file"
    return exp


def check_files(root, a):
    exp = expected_files(a)
    found = set()
    for d, _, files in os.walk(root):
        for f in files:
            found.add("/" + os.path.relpath(os.path.join(d, f), root))
    print(f"installed {len(found)} files:")
    for f in sorted(found):
        print("  " + f)
    missing = sorted(set(exp) - found)
    extra = sorted(found - set(exp))
    if missing:
        fail("not installed: " + " ".join(missing))
    if extra:
        fail("installed but not expected (internal? a new file for the "
             "test's list?): " + " ".join(extra))
    for path, kind in exp.items():
        p = root + path
        if kind.startswith("link "):
            if not os.path.islink(p) or os.readlink(p) != kind[5:]:
                fail(f"{path} should be a symlink to {kind[5:]}")
        elif os.path.islink(p) or not os.path.isfile(p):
            fail(f"{path} should be a regular file")
        elif kind == "exe" and not os.stat(p).st_mode & stat.S_IXUSR:
            fail(f"{path} is not executable")
    print(f"ok: exactly the {len(exp)} expected files, links as expected")


def check_library(root, a):
    major = a["version"].split(".")[0]
    so = root + os.path.join(a["libdir"], "libftf.so." + a["version"])
    dyn = run(["readelf", "-d", so]).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", dyn)
    if not m or m.group(1) != "libftf.so." + major:
        fail(f"soname of {so}: {m.group(1) if m else None}, "
             f"want libftf.so.{major}")
    exported = run(["nm", "-D", "--defined-only", so]).stdout.split("\n")
    names = [l.split()[-1] for l in exported if l.strip()]
    stray = [n for n in names if not n.startswith("ftf_")]
    if "ftf_writer_init" not in names or "ftf_reader_next" not in names:
        fail("libftf.so does not export ftf_writer_init / ftf_reader_next")
    if stray:
        fail("libftf.so exports names outside ftf_: " + " ".join(stray))
    static = root + os.path.join(a["libdir"], "libftf.a")
    syms = run(["nm", static]).stdout
    for want in ("ftf_writer_init", "ftf_clock_init", "ftf_reader_next"):
        if not re.search(r" T " + want + r"$", syms, re.M):
            fail(f"libftf.a does not define {want}")
    print(f"ok: soname libftf.so.{major}, {len(names)} ftf_ names exported "
          "and no others; libftf.a defines the writer, clock and reader")


def pkg_config_env(root, a):
    env = dict(os.environ)
    for k in ("CFLAGS", "LDFLAGS", "CPPFLAGS", "LD_PRELOAD",
              "PKG_CONFIG_SYSROOT_DIR", "PKG_CONFIG_LIBDIR"):
        env.pop(k, None)
    env["PKG_CONFIG_PATH"] = root + os.path.join(a["libdir"], "pkgconfig")
    pc = open(env["PKG_CONFIG_PATH"] + "/libftf.pc").read()
    if "${pcfiledir}" not in pc:
        # A build directory configured before pkgconfig.relocatable was
        # a default: its libftf.pc names the real prefix, so point
        # pkg-config at the staged tree the documented way.
        print("note: libftf.pc is not relocatable (meson configure "
              "-Dpkgconfig.relocatable=true); using PKG_CONFIG_SYSROOT_DIR")
        env["PKG_CONFIG_SYSROOT_DIR"] = root
    flags = run(["pkg-config", "--cflags", "--libs", "libftf"], env=env)
    flags = flags.stdout.split()
    print("pkg-config --cflags --libs libftf: " + " ".join(flags))
    for f in flags:
        if f[:2] in ("-I", "-L") and not os.path.realpath(
                f[2:]).startswith(os.path.realpath(root)):
            fail(f"{f} points outside the install at {root}")
    if not any(f == "-lftf" for f in flags):
        fail("pkg-config --libs libftf has no -lftf")
    return env, flags


def check_headers(a, env, flags, work):
    cflags = [f for f in flags if f.startswith("-I")]
    for h in a["headers"]:
        src = os.path.join(work, "h_" + h.replace(".", "_") + ".c")
        with open(src, "w") as f:
            f.write(f"#include <ftf/{h}>\nint main(void) {{ return 0; }}\n")
        run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", src,
             "-o", src + ".o"] + cflags, env=env)
    print(f"ok: each of the {len(a['headers'])} headers compiles alone "
          "(-std=c11 -Wall -Wextra -Werror)")


def read_trace(ftf_dump, trace, env):
    """The records of a trace as ftf-dump prints them."""
    return run([ftf_dump, trace], env=env).stdout.splitlines()


def check_example_trace(root, a, exe, env, label):
    trace = exe + ".fxt"
    out = run([exe, "-o", trace, "-n", str(STEPS), "-b", "200", "-s", "300"],
              env=env)
    print(out.stdout.strip())
    if trace not in out.stdout:
        fail(f"{label}: self-trace did not say where its trace went")
    ftf_dump = root + os.path.join(a["bindir"], "ftf-dump")
    check = run([ftf_dump, "--check", trace])
    print(check.stdout.strip())
    if not check.stdout.startswith("ok "):
        fail(f"{label}: ftf-dump --check: {check.stdout}")
    recs = read_trace(ftf_dump, trace, None)
    m = re.search(r"thread (\d+) of pid (\d+)", out.stdout)
    tid, pid = m.group(1), m.group(2)
    named = {
        "process self-trace": f"KernelObject(koid: {pid}, type: process, "
                              'name: "self-trace"',
        "thread self-trace": f"KernelObject(koid: {pid}, type: thread, "
                             'name: "self-trace"',
        "thread stepper": f"KernelObject(koid: {tid}, type: thread, "
                          'name: "stepper"',
    }
    for what, prefix in named.items():
        if not any(r.startswith(prefix) for r in recs):
            fail(f"{label}: no record naming the {what}")
    steps = [r for r in recs if f"pt: {pid}/{tid}," in r
             and 'name: "step", DurationComplete' in r]
    idx = [int(re.search(r"step: int64\((\d+)\)", r).group(1)) for r in steps]
    if idx != list(range(STEPS)):
        fail(f"{label}: step slices {idx}, want 0..{STEPS - 1}")
    inits = [r for r in recs if r.startswith("Initialization(")]
    if not inits:
        fail(f"{label}: no initialization record")
    print(f"ok: {label}: {STEPS} step slices on thread {tid}, process and "
          f"threads named, {inits[0]}")


def check_example(root, a, env, flags, work):
    src = os.path.join(work, "self_trace.c")
    shutil.copy(a["example"], src)
    libdir = root + a["libdir"]
    run_env = dict(env)
    run_env["LD_LIBRARY_PATH"] = libdir
    if a["sanitize"] != "none":
        asan = run(["cc", "-print-file-name=libasan.so"]).stdout.strip()
        run_env["LD_PRELOAD"] = asan
        print(f"note: this is a -Db_sanitize={a['sanitize']} build, so the "
              f"installed libftf.so needs its runtime: LD_PRELOAD={asan}")
    shared = os.path.join(work, "self-trace")
    run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", src, "-o", shared]
        + flags, env=env)
    needed = run(["readelf", "-d", shared]).stdout
    if "libftf.so." + a["version"].split(".")[0] not in needed:
        fail("the example is not linked against the shared libftf")
    check_example_trace(root, a, shared, run_env, "shared libftf")
    check_readme_examples(root, a, env, flags, run_env, work)
    if a["sanitize"] != "none":
        print("note: libftf.a of a sanitizer build needs -fsanitize to "
              "link; the static link is checked in the plain build")
        return
    # pkg-config --static: libftf.a in place of -lftf, then whatever
    # libftf needs itself (Libs.private, Requires.private).
    static = os.path.join(work, "self-trace-static")
    cflags = [f for f in flags if f.startswith("-I")]
    libs = run(["pkg-config", "--static", "--libs", "libftf"],
               env=env).stdout.split()
    libs = [os.path.join(libdir, "libftf.a") if f == "-lftf" else f
            for f in libs]
    run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", src, "-o", static]
        + cflags + libs, env=env)
    if "libftf.so" in run(["readelf", "-d", static]).stdout:
        fail("the static example still needs libftf.so")
    check_example_trace(root, a, static, env, "static libftf")


def readme_examples(readme):
    """The ```c blocks of the README's libftf section."""
    text = open(readme, encoding="utf-8").read()
    section = text.split("\n## libftf\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```c\n(.*?)^```$", section, re.M | re.S)


def check_readme_examples(root, a, env, flags, run_env, work):
    blocks = readme_examples(a["readme"])
    if len(blocks) != 2:
        fail(f"README's libftf section: {len(blocks)} C examples, want 2 "
             "(a writer, a reader)")
    outs = []
    for i, code in enumerate(blocks):
        src = os.path.join(work, f"readme_{i}.c")
        with open(src, "w") as f:
            f.write(code)
        exe = src[:-2]
        run(["cc", "-Wall", "-Wextra", "-Werror", src, "-o", exe] + flags,
            env=env)
        outs.append(run([exe, "myapp.fxt"], env=run_env, cwd=work).stdout)
    trace = os.path.join(work, "myapp.fxt")
    ftf_dump = root + os.path.join(a["bindir"], "ftf-dump")
    check = run([ftf_dump, "--check", trace]).stdout
    slices = [r for r in read_trace(ftf_dump, trace, None)
              if 'name: "work", DurationComplete' in r]
    printed = [l for l in outs[1].splitlines() if l.endswith(" work")]
    print(check.strip())
    if not check.startswith("ok ") or len(slices) != 10 or len(printed) != 10:
        fail(f"README examples: check {check!r}, {len(slices)} work slices "
             f"written and {len(printed)} read back, want 10")
    print("ok: the README's writer and reader examples build and run: "
          "10 work slices written, whole, and read back")


def check_man(root, a):
    env = dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat",
               LC_ALL="C.UTF-8")
    if not shutil.which("man"):
        fail("man not found: run scripts/setup.sh (man-db, groff-base)")
    for t in a["tools"]:
        page = root + os.path.join(a["mandir"], "man1", t + ".1")
        r = run(["man", "-l", "--warnings", page], env=env)
        if r.stderr.strip():
            fail(f"man --warnings on {page}:\n{r.stderr}")
        if "NAME" not in r.stdout or t not in r.stdout:
            fail(f"{page} renders without its NAME section")
        print(f"ok: {t}.1 renders, {len(r.stdout.splitlines())} lines, "
              "no warnings")


def check_completion(root, a):
    if "ftf-bpf" not in a["tools"]:
        return
    comp = root + os.path.join(a["completionsdir"], "ftf-bpf")
    bindir = root + a["bindir"]
    script = f"""
source '{comp}'
complete -p ftf-bpf || exit 3
c() {{ COMP_LINE="$1"; COMP_POINT=${{#1}}; read -ra COMP_WORDS <<<"$1"
      COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMPREPLY=(); _ftf_bpf
      echo "$1 => ${{COMPREPLY[*]}}"; }}
c 'ftf-bpf --outp'
c 'ftf-bpf --clock '
c 'ftf-bpf -u libc:mallo'
"""
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"])
    out = run(["bash", "--norc", "--noprofile", "-c", script], env=env).stdout
    print(out.strip())
    lines = dict(l.split(" => ", 1) for l in out.splitlines() if " => " in l)
    want = {"ftf-bpf --outp": ["--output"],
            "ftf-bpf --clock ": ["tsc", "mono"]}
    for line, words in want.items():
        if lines.get(line, "").split() != words:
            fail(f"completing '{line}': {lines.get(line)!r}, want {words}")
    # -u LIB:FUNC from --list: libc's malloc is one (the word bash
    # replaces is the part after ':').
    got = lines.get("ftf-bpf -u libc:mallo", "").split()
    if "malloc" not in got or any(not g.startswith("mallo") for g in got):
        fail(f"completing -u libc:mallo gave {got}")
    print(f"ok: the completion offers options, --clock values and "
          f"{len(got)} libc functions for -u libc:mallo")


def main():
    a = args()
    tmp = tempfile.mkdtemp(prefix="ftf-install-")
    try:
        root = os.path.join(tmp, "dest")
        work = os.path.join(tmp, "outside")
        os.makedirs(work)
        run([a["meson"], "install", "-C", a["build"], "--no-rebuild",
             "--destdir", root])
        check_files(root, a)
        check_library(root, a)
        env, flags = pkg_config_env(root, a)
        check_headers(a, env, flags, work)
        check_example(root, a, env, flags, work)
        check_man(root, a)
        check_completion(root, a)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok: install test passed")


if __name__ == "__main__":
    main()
