#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The floor plan's rules, checked from a build's objects.

Usage: scripts/check-layout.py SOURCE_DIR BUILD_DIR [--size-warn]
       scripts/check-layout.py --self-test    (each rule on a made-up tree must fail)

The graph: one node per unit of code -- a .c file together with the header
of its name, its face (src/F/x.h beside x.c, or include/replay/x.h for the one
src/*/x.c) -- and an edge A -> B when A's .c file includes B's face, or when
A's object calls a function B's object defines (nm: an undefined symbol of
one object that another defines as code).  A header's own includes are
declarations, not code: they are checked for cycles among the headers alone.
References to data -- the ops tables a registry lists, a table of names --
are not edges either: a registry does not depend on how the edits or
methods it lists work.

Fails on
  (a) a .c or .h file directly under src/ (every file is in its module's folder);
  (b) a source file over MAX_LINES lines (printed only with --size-warn);
  (c) a cycle whose components are in different folders.
Prints cycles inside one folder without failing, and the figures to quote:
files, lines, the largest file, cycles.  Exit 0, 1 on a failure, 77 (skip)
without nm or the build's compile_commands.json.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

MAX_LINES = 800
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Where an #include "..." is looked for: the including file's folder, then
# the build's include directories (meson.build: include/ and the root; the
# unit tests and replay-rx add src/ and src/rx/).
INCLUDE_DIRS = ('include', '.', 'src', 'src/rx')


def source_files(src):
    files = []
    for top in ('src', 'include/replay'):
        for dirpath, _, names in os.walk(os.path.join(src, top)):
            for n in names:
                if n.endswith(('.c', '.h')):
                    files.append(os.path.relpath(os.path.join(dirpath, n), src))
    return sorted(files)


def objects(src, build):
    """{source file: its object} for every compiled file under src/."""
    with open(os.path.join(build, 'compile_commands.json')) as f:
        commands = json.load(f)
    objs = {}
    for c in commands:
        path = os.path.normpath(os.path.join(c['directory'], c['file']))
        rel = os.path.relpath(path, os.path.realpath(src))
        if rel.startswith('src' + os.sep) and 'output' in c:
            objs[rel] = os.path.join(c['directory'], c['output'])
    return objs


def symbols(nm, objs):
    """{object: (functions it defines, symbols it uses but does not define)}, one nm run."""
    out = subprocess.run([nm, '-P', '-A'] + objs, capture_output=True, text=True, check=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        obj, _, rest = line.partition(': ')
        f = rest.split()
        if obj not in syms or len(f) < 2:
            continue
        if f[1] == 'U':
            syms[obj][1].add(f[0])
        elif f[1] in ('T', 'W'):
            syms[obj][0].add(f[0])
    return syms


def resolve(src, frm, name):
    for base in (os.path.dirname(frm),) + INCLUDE_DIRS:
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(src, p)):
            return p
    return None


def faces(files):
    """{header: the unit (x.c's path without .c) whose face it is} for the headers that are one."""
    by_stem = collections.defaultdict(list)
    for f in files:
        if f.endswith('.c'):
            by_stem[os.path.splitext(os.path.basename(f))[0]].append(f)
    face = {}
    for f in files:
        stem, ext = os.path.splitext(f)
        if ext != '.h':
            continue
        if os.path.isfile(stem + '.c'):
            face[f] = stem
        elif f.startswith('include/replay/') and len(by_stem.get(os.path.basename(stem), [])) == 1:
            face[f] = os.path.splitext(by_stem[os.path.basename(stem)][0])[0]
    return face


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                scc = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    scc.append(w)
                    if w == v:
                        break
                if len(scc) > 1:
                    out.append(sorted(scc))
    return sorted(out)


def explain(graph, why, scc):
    """One circle through the component's first node, edge by edge, with what makes each edge."""
    members, start = set(scc), scc[0]
    prev, queue = {start: None}, [start]
    for v in queue:
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                path.reverse()
                path.append(start)
                return '\n'.join(f'    {a} -> {b}: {why[(a, b)]}' for a, b in zip(path, path[1:]))
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return ''


def main(argv):
    args = [a for a in argv[1:] if not a.startswith('--')]
    size_warn = '--size-warn' in argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    src, build = args
    nm = shutil.which('nm')
    if not nm or not os.path.isfile(os.path.join(build, 'compile_commands.json')):
        print('SKIP: no nm or no compile_commands.json in', build)
        return 77
    os.chdir(src)
    files = source_files('.')
    failed = False

    loose = [f for f in files if f.startswith('src/') and f.count('/') == 1]
    for f in loose:
        print(f'FAIL: {f} is directly under src/: it belongs in its module\'s folder')
    failed |= bool(loose)

    lines = {}
    for f in files:
        with open(f, 'rb') as fh:
            lines[f] = fh.read().count(b'\n')
    big = sorted((f for f in files if lines[f] > MAX_LINES), key=lambda f: -lines[f])
    for f in big:
        print(f'{"WARN" if size_warn else "FAIL"}: {f} has {lines[f]} lines (over {MAX_LINES})')
    failed |= bool(big) and not size_warn

    face = faces(files)
    graph = collections.defaultdict(set)  # units of code
    hgraph = collections.defaultdict(set)  # headers
    why = {}
    for f in files:
        with open(f, errors='replace') as fh:
            text = fh.read()
        unit = os.path.splitext(f)[0]
        if f.endswith('.c'):
            graph[unit]
        else:
            hgraph[f]
        for m in INCLUDE_RE.finditer(text):
            h = resolve('.', f, m.group(1))
            if not h or not h.endswith('.h'):
                continue
            if f.endswith('.h'):
                hgraph[f].add(h)
                why.setdefault((f, h), f'{os.path.basename(f)} includes {h}')
            elif h in face and face[h] != unit:
                graph[unit].add(face[h])
                why.setdefault((unit, face[h]), f'{os.path.basename(f)} includes {h}')
    objs = objects('.', build)
    syms = symbols(nm, sorted(objs.values()))
    code = {f: syms[o][0] for f, o in objs.items()}
    undef = {f: syms[o][1] for f, o in objs.items()}
    definer = {}
    for f in sorted(code):
        for s in code[f]:
            definer.setdefault(s, f)
    calls = 0
    for f in sorted(undef):
        for s in sorted(undef[f]):
            d = definer.get(s)
            if d and d != f:
                a, b = os.path.splitext(f)[0], os.path.splitext(d)[0]
                graph[a].add(b)
                why.setdefault((a, b), f'{os.path.basename(f)} calls {s}()')
                calls += 1

    def folder(c):
        return os.path.dirname(c)

    inside, across = [], []
    for g in (graph, hgraph):
        for scc in cycles(g):
            (across if len({folder(c) for c in scc}) > 1 else inside).append((g, scc))
    for g, scc in across:
        print('FAIL: cycle across folders:', ' '.join(scc))
        print(explain(g, why, scc))
    for g, scc in inside:
        print(f'cycle in {folder(scc[0])}/:', ' '.join(os.path.basename(c) for c in scc))
        print(explain(g, why, scc))
    failed |= bool(across)

    src_files = [f for f in files if f.startswith('src/')]
    largest = max(src_files, key=lambda f: lines[f])
    print(f'layout: {len(src_files)} files under src/ ({sum(lines[f] for f in src_files)} lines), '
          f'{len(files) - len(src_files)} public headers; largest {largest} ({lines[largest]} lines); '
          f'{len(big)} over {MAX_LINES} lines; {len(graph)} units of code, {len(objs)} objects, '
          f'{calls} cross-file call references; cycles: {len(inside)} inside a folder, '
          f'{len(across)} across folders')
    return 1 if failed else 0


def self_test():
    """A tree that breaks each rule: the check must fail on each, and pass once they are gone."""
    import contextlib
    import io
    import tempfile

    cc = shutil.which('cc') or shutil.which('gcc') or shutil.which('clang')
    if not cc or not shutil.which('nm'):
        print('SKIP: no C compiler or nm')
        return 77
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as t:
        files = {
            'src/x/one.c': '#include "replay/one.h"\nint two(void);\nint one(void) { return two(); }\n',
            'src/y/two.c': '#include "replay/one.h"\nint two(void);\nint two(void) { return 1; }\n',
            'src/y/three.c': 'int four(void);\nint three(void);\nint three(void) { return four(); }\n',
            'src/y/four.c': 'int three(void);\nint four(void);\nint four(void) { return three(); }\n',
            'src/loose.c': 'int loose(void);\nint loose(void) { return 0; }\n',
            'include/replay/one.h': 'int one(void);\n',
        }
        files['src/y/big.c'] = '\n' * (MAX_LINES + 1)

        def run(*extra):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = main(['check-layout', t, os.path.join(t, 'build')] + list(extra))
            os.chdir(here)
            return rc, out.getvalue()

        def build():
            commands = []
            for f, text in files.items():
                os.makedirs(os.path.join(t, os.path.dirname(f)), exist_ok=True)
                with open(os.path.join(t, f), 'w') as fh:
                    fh.write(text)
            os.makedirs(os.path.join(t, 'build'), exist_ok=True)
            for f in files:
                if f.endswith('.c'):
                    o = f.replace('/', '_') + '.o'
                    subprocess.run([cc, '-c', '-I', os.path.join(t, 'include'), os.path.join(t, f), '-o',
                                    os.path.join(t, 'build', o)], check=True)
                    commands.append({'directory': os.path.join(t, 'build'), 'file': '../' + f, 'output': o})
            with open(os.path.join(t, 'build', 'compile_commands.json'), 'w') as fh:
                json.dump(commands, fh)

        build()
        rc, out = run()
        want = ['FAIL: src/loose.c is directly under src/', 'FAIL: src/y/big.c has',
                'FAIL: cycle across folders: src/x/one src/y/two', 'cycle in src/y/: four three']
        for w in want:
            if w not in out:
                print(f'self-test: no "{w}" in:\n{out}')
                return 1
        if rc != 1 or run('--size-warn')[0] != 1:
            print(f'self-test: exit {rc} where 1 was due')
            return 1
        for f in ('src/loose.c', 'src/y/big.c'):
            os.remove(os.path.join(t, f))
            del files[f]
        files['src/y/two.c'] = 'int two(void);\nint two(void) { return 1; }\n'
        for f in os.listdir(os.path.join(t, 'build')):
            os.remove(os.path.join(t, 'build', f))
        build()
        rc, out = run()
        if rc != 0 or 'cycle in src/y/: four three' not in out:
            print(f'self-test: exit {rc} once the rules hold:\n{out}')
            return 1
    print('self-test: each rule fails when broken, the tree passes when mended')
    return 0


if __name__ == '__main__':
    sys.exit(self_test() if sys.argv[1:] == ['--self-test'] else main(sys.argv))
