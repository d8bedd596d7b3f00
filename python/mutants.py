"""Known-wrong variants of a reference implementation, by single AST mutations.

Reads {"id": code} JSON on stdin and an optional limit as the first argument; writes
{"id": [{"kind", "line", "code"}, ...]} on stdout. Each mutant differs from the original by one
comparison, arithmetic or boolean operator, one integer constant (off by one), one flipped
boolean constant or one dropped `not`. Kinds are taken in turn so that a small limit still mixes
them. Some mutants may be equivalent to the original (no test can tell them apart); the
evaluation keeps only those the dataset's own tests reject. Code that does not parse gets none.
"""

import ast
import copy
import json
import sys

COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
ARITHMETIC = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
BOOLEAN = {ast.And: ast.Or, ast.Or: ast.And}
KINDS = ("comparison", "arithmetic", "constant", "boolean", "logic", "negation")


def sites(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """Every place one mutation can be made, by kind, in source order."""
    found: dict[str, list[ast.AST]] = {k: [] for k in KINDS}
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in COMPARE:
            found["comparison"].append(node)
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITHMETIC:
            found["arithmetic"].append(node)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            found["constant"].append(node)
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            found["boolean"].append(node)
        elif isinstance(node, ast.BoolOp):
            found["logic"].append(node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            found["negation"].append(node)
    for nodes in found.values():
        nodes.sort(key=lambda n: (n.lineno, n.col_offset))
    return found


class Mutate(ast.NodeTransformer):
    """Applies one mutation to one node, found by identity: nested nodes of the same type can start
    at the same line and column (`a * b / c`), so a position does not name a site."""

    def __init__(self, kind: str, target: ast.AST):
        self.kind = kind
        self.target = target

    def visit(self, node: ast.AST) -> ast.AST:
        if node is not self.target:
            return self.generic_visit(node)
        if self.kind == "comparison":
            node.ops[0] = COMPARE[type(node.ops[0])]()
        elif self.kind == "arithmetic":
            node.op = ARITHMETIC[type(node.op)]()
        elif self.kind == "constant":
            node.value = node.value + 1
        elif self.kind == "boolean":
            node.value = not node.value
        elif self.kind == "logic":
            node.op = BOOLEAN[type(node.op)]()
        elif self.kind == "negation":
            return node.operand
        return node


def mutants(code: str, limit: int) -> list[dict]:
    tree = ast.parse(code)
    original = ast.unparse(tree)
    queues = {kind: list(nodes) for kind, nodes in sites(tree).items()}
    out: list[dict] = []
    seen = {original}
    while len(out) < limit and any(queues.values()):
        for kind in KINDS:
            if len(out) >= limit or not queues[kind]:
                continue
            site = queues[kind].pop(0)
            # deepcopy's memo maps each original node to its copy: the site's twin in the clone.
            memo: dict[int, object] = {}
            copied = copy.deepcopy(tree, memo)
            clone = Mutate(kind, memo[id(site)]).visit(copied)
            text = ast.unparse(ast.fix_missing_locations(clone))
            if text not in seen:
                seen.add(text)
                out.append({"kind": kind, "line": site.lineno, "code": text})
    return out


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    sources = json.load(sys.stdin)
    result = {}
    for key, code in sources.items():
        try:
            result[key] = mutants(code, limit)
        except (SyntaxError, ValueError, RecursionError):
            result[key] = []
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
