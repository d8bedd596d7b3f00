"""Known-wrong variants of HumanEval canonical solutions, by small AST mutations.

Reads {"task_id": code} JSON on stdin; writes {"task_id": [{"kind", "code"}, ...]} on stdout.
Each mutant differs from the original by one operator, integer constant (off by one) or flipped boolean; a mutant that
is equivalent to the original (no test can tell) may exist and is reported by the evaluation.
"""

import ast
import copy
import json
import sys

SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
BINOPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}


def mutants(code: str, limit: int = 3) -> list[dict]:
    tree = ast.parse(code)
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in SWAPS:
            sites.append(("comparison", node))
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            sites.append(("arithmetic", node))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append(("constant", node))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            sites.append(("boolean", node))
    out, seen = [], set()
    for kind, site in sites:
        if len(out) >= limit:
            break
        clone = copy.deepcopy(tree)
        target = next(
            n
            for n in ast.walk(clone)
            if isinstance(n, type(site))
            and getattr(n, "lineno", None) == site.lineno
            and getattr(n, "col_offset", None) == site.col_offset
            and (kind != "arithmetic" or type(n.op) in BINOPS)
        )
        if kind == "comparison":
            target.ops[0] = SWAPS[type(target.ops[0])]()
        elif kind == "arithmetic":
            target.op = BINOPS[type(target.op)]()
        elif kind == "boolean":
            target.value = not target.value
        else:
            target.value = target.value + 1
        text = ast.unparse(clone)
        if text not in seen and text != ast.unparse(tree):
            seen.add(text)
            out.append({"kind": kind, "code": text})
    return out


if __name__ == "__main__":
    sources = json.load(sys.stdin)
    result = {}
    for task, code in sources.items():
        try:
            result[task] = mutants(code)
        except SyntaxError:
            result[task] = []
    json.dump(result, sys.stdout)
