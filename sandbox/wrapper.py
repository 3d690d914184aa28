# pocketeval sandbox wrapper: runs one program and proves it ran to its end.
# Invoked as: python3 -I -B -c <this> <program path>
# fd 3 carries the run's nonce (then EOF); fd 4 receives the proof.
# Only a normal end of the program writes "ok <nonce>" to fd 4; every
# other outcome writes "exc <name>" and ends with status 1. The process
# always ends with os._exit, so atexit hooks and excepthooks cannot change
# the outcome. Assert comparisons (== and !=) are rewritten to reject
# values whose __eq__/__ne__ is not builtin or from the standard library.
def _pe_main():
    import os, sys, ast, builtins, types
    _exit, _write, _close = os._exit, os.write, os.close
    chunks = []
    while True:
        b = os.read(3, 256)
        if not b:
            break
        chunks.append(b)
    _close(3)
    nonce = b"".join(chunks).strip()
    try:
        os.set_inheritable(4, False)
    except OSError:
        pass

    def report(line):
        try:
            _write(4, line.encode("utf-8", "replace")[:200] + b"\n")
        except BaseException:
            pass

    path = sys.argv[1]
    # The standard library's directory (lib-dynload is inside it).
    stdlib = (os.path.realpath(os.path.dirname(os.__file__)) + os.sep,)
    builtin_kinds = (
        types.WrapperDescriptorType, types.MethodWrapperType,
        types.BuiltinFunctionType, types.MethodDescriptorType,
    )
    _isinstance, _type, _id, _len = isinstance, type, id, len
    containers = (list, tuple, set, frozenset)

    def trusted(fn):
        if _isinstance(fn, builtin_kinds):
            return True
        code = getattr(fn, "__code__", None)
        if code is None:
            return False
        fname = os.path.realpath(code.co_filename)
        return fname.startswith(stdlib)

    def check_value(v, seen, budget):
        stack = [v]
        while stack:
            x = stack.pop()
            if budget[0] <= 0:
                return
            budget[0] -= 1
            t = _type(x)
            for klass in t.__mro__:
                d = klass.__dict__
                for name in ("__eq__", "__ne__"):
                    if name in d and not trusted(d[name]):
                        raise AssertionError(
                            "comparison refused: %s.%s is defined by the program" % (t.__name__, name))
            if t in containers or t is dict:
                if _id(x) in seen:
                    continue
                seen.add(_id(x))
                if t is dict:
                    stack.extend(x.keys())
                    stack.extend(x.values())
                else:
                    stack.extend(x)

    def pe_cmp(a, b, ne):
        seen, budget = set(), [100000]
        check_value(a, seen, budget)
        check_value(b, seen, budget)
        return (a != b) if ne else (a == b)

    helper = "_pe_cmp_" + os.urandom(6).hex()

    class Rewrite(ast.NodeTransformer):
        def visit_Assert(self, node):
            node.test = Compare().visit(node.test)
            return node

    class Compare(ast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if _len(node.ops) == 1 and _isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                call = ast.Call(
                    func=ast.Name(id=helper, ctx=ast.Load()),
                    args=[node.left, node.comparators[0],
                          ast.Constant(value=_isinstance(node.ops[0], ast.NotEq))],
                    keywords=[])
                return ast.copy_location(call, node)
            return node

    status = 1
    try:
        with open(path, "rb") as f:
            src = f.read()
        tree = ast.parse(src, filename=path)
        tree = ast.fix_missing_locations(Rewrite().visit(tree))
        code = compile(tree, path, "exec", dont_inherit=True)
        g = {"__name__": "__main__", "__file__": path, "__builtins__": builtins, helper: pe_cmp}
        sys.argv = [path]
        exec(code, g)
    except SystemExit as e:
        report("exc SystemExit(%r) before the end" % (e.code,))
    except BaseException as e:
        try:
            import traceback
            tb = e.__traceback__
            traceback.print_exception(_type(e), e, tb.tb_next if tb is not None else tb)
        except BaseException:
            pass
        try:
            name = _type(e).__name__
        except BaseException:
            name = "exception"
        report("exc " + str(name))
    else:
        status = 0
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass
    if status == 0:
        try:
            _write(4, b"ok " + nonce + b"\n")
        except BaseException:
            status = 1
    _exit(status)


_pe_main()
