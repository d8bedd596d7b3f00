/**
 * The Python side of the oracle: two small programs staged into two separate sandboxes.
 *
 * - calls.py imports the code under test and evaluates each call expression, writing one
 *   type-tagged result per call to the results channel (fd 3). It never sees an expected value.
 * - expected.py evaluates the expected expressions (and tolerances) without ever importing the
 *   code under test, and resolves the exception classes a raises test names among its built-ins.
 *
 * An exception is matched by class, not by name: calls.py reports the raised type's first
 * built-in class found by identity (against the classes captured before the code loads), and the
 * host accepts it only if expected.py, in a process the code never touched, lists it as the named
 * class or a subclass. A forged record can claim one built-in class, which is no more than raising
 * a real one; a class that only carries a built-in's name matches nothing.
 *
 * encode.py is shared: exact types only (no subclasses, so no custom __eq__, __bool__ or
 * __repr__ is ever consulted), anything else an opaque marker that never equals anything.
 * Whatever the code under test does to these programs inside its own process (patching them,
 * printing, writing records itself) amounts to returning some value for a call (or raising one
 * exception): it cannot know what value would pass.
 */

export const PY_ENCODER = String.raw`import builtins, json, math, os, traceback

MAX_NODES = 200000
MAX_DEPTH = 200
_qualname = type.__dict__["__qualname__"].__get__
_mro = type.__dict__["__mro__"].__get__
_module = type.__dict__["__module__"].__get__


class TooLarge(Exception):
    pass


def type_name(t):
    try:
        name = _qualname(t)
        return name if type(name) is str else "?"
    except Exception:
        return "?"


def _float(x):
    if x != x:
        return "nan"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def encode(x, budget=None, depth=0):
    budget = budget if budget is not None else [0]
    budget[0] += 1
    if budget[0] > MAX_NODES:
        raise TooLarge()
    t = type(x)
    if x is None:
        return {"t": "none"}
    if x is Ellipsis:
        return {"t": "ellipsis"}
    if t is bool:
        return {"t": "bool", "v": x}
    if t is int:
        return {"t": "int", "v": ("-" if x < 0 else "") + format(-x if x < 0 else x, "x")}
    if t is float:
        return {"t": "float", "v": _float(x)}
    if t is complex:
        return {"t": "complex", "re": _float(x.real), "im": _float(x.imag)}
    if t is str:
        return {"t": "str", "v": x}
    if t is bytes:
        return {"t": "bytes", "v": x.hex()}
    if depth >= MAX_DEPTH:
        return {"t": "opaque", "type": "nested deeper than %d levels" % MAX_DEPTH}
    if t is list or t is tuple or t is set or t is frozenset:
        return {"t": t.__name__, "v": [encode(e, budget, depth + 1) for e in x]}
    if t is dict:
        return {"t": "dict", "v": [[encode(k, budget, depth + 1), encode(v, budget, depth + 1)] for k, v in dict.items(x)]}
    return {"t": "opaque", "type": type_name(t)}


# The built-in exception classes, captured when this module loads, before the code under test
# runs: a raised exception is placed by identity among these, never by a name it carries.
_type, _id, _str = type, id, str
_BUILTIN_BY_NAME = {n: c for n, c in vars(builtins).items() if isinstance(c, type) and issubclass(c, BaseException)}
_BUILTIN_EXCEPTIONS = list(_BUILTIN_BY_NAME.values())
_BUILTIN_NAMES = {_id(c): _qualname(c) for c in _BUILTIN_EXCEPTIONS}


def describe_exception(e):
    """The raised type's name; its branch, the first built-in class (by identity) in its MRO, so
    one branch only for a class claiming many built-in bases; and the names of its own classes
    (the code's, outside the built-ins) that a test may name. The host decides what matches."""
    t = _type(e)
    branch, own = None, []
    try:
        for c in _mro(t):
            name = _BUILTIN_NAMES.get(_id(c))
            if name is not None:
                branch = name
                break
            own.append(type_name(c).rsplit(".", 1)[-1])
    except Exception:
        pass
    try:
        message = _str(e)
        message = message if _type(message) is str else ""
    except BaseException:
        message = ""
    return {"type": type_name(t), "branch": branch, "own": own[:20], "message": message[:500]}


def builtin_subclasses(name):
    """The built-in exception classes that are NAME or a real subclass of it, NAME resolved
    among the built-ins of this process; None when NAME is not a built-in exception."""
    base = _BUILTIN_BY_NAME.get(name)
    if base is None:
        return None
    return sorted({_qualname(c) for c in _BUILTIN_EXCEPTIONS if issubclass(c, base)})


def sender():
    write = os.write

    def send(record):
        data = (json.dumps(record, ensure_ascii=True, allow_nan=False) + "\n").encode()
        while data:
            data = data[write(3, data) :]

    return send


def short_traceback(e):
    return "".join(traceback.format_exception_only(type(e), e))[-2000:]
`;

export const PY_CALLS_HARNESS = String.raw`import asyncio, importlib.util, io, json, os, signal, sys, types
sys.path.insert(0, sys.argv[1])
from encode import TooLarge, describe_exception, encode, sender, short_traceback

send = sender()
in_dir, start, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with open(os.path.join(in_dir, "calls.json"), encoding="utf-8") as f:
    calls = json.load(f)
sys.path.pop(0)


class CallTimeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise CallTimeout()


spec = importlib.util.spec_from_file_location("target", os.path.join(in_dir, "target.py"))
module = importlib.util.module_from_spec(spec)
sys.modules["target"] = module
real_out, real_err = sys.stdout, sys.stderr
try:
    sys.stdout = sys.stderr = io.StringIO()
    spec.loader.exec_module(module)
except BaseException as e:
    sys.stdout, sys.stderr = real_out, real_err
    send({"load": short_traceback(e)})
    os._exit(0)
sys.stdout, sys.stderr = real_out, real_err

for i in range(start, len(calls)):
    send({"s": i})
    buf = io.StringIO()
    sys.stdout = sys.stderr = buf
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        value = eval(compile(calls[i], "<test>", "eval"), module.__dict__)
        if type(value) is types.CoroutineType:
            value = asyncio.run(value)
        outcome = {"r": encode(value)}
    except CallTimeout:
        outcome = {"timeout": True}
    except TooLarge:
        outcome = {"big": True}
    except BaseException as e:
        outcome = {"x": describe_exception(e)}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = real_out, real_err
    outcome.update(i=i, out=buf.getvalue()[:4000])
    send(outcome)
os._exit(0)
`;

export const PY_EXPECTED_HARNESS = String.raw`import builtins, json, math, os, signal, sys
sys.path.insert(0, sys.argv[1])
from encode import TooLarge, builtin_subclasses, encode, sender, short_traceback

send = sender()
in_dir, start, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with open(os.path.join(in_dir, "expected.json"), encoding="utf-8") as f:
    items = json.load(f)


class EvalTimeout(BaseException):
    pass


def on_alarm(signum, frame):
    raise EvalTimeout()


signal.signal(signal.SIGALRM, on_alarm)
for item in items[start:]:
    send({"s": item["i"]})
    record = {"i": item["i"]}
    if "raises" in item:
        record["subclasses"] = {name: builtin_subclasses(name) for name in item["raises"]}
    for field in ("expected", "rel", "abs"):
        source = item.get(field)
        if not source:
            continue
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            record[field] = encode(eval(compile(source, "<expected>", "eval"), {"math": math, "__builtins__": builtins}))
        except EvalTimeout:
            record["error"] = "the %s value took longer than %.1f s to evaluate" % (field, limit)
        except TooLarge:
            record["error"] = "the %s value is too large to compare" % field
        except BaseException as e:
            record["error"] = "the %s value could not be evaluated: %s" % (field, short_traceback(e).strip())
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if "error" in record:
            break
    send(record)
os._exit(0)
`;
