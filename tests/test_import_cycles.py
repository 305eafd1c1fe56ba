"""No module of ``ralph_tui`` imports itself back through others, lazily or not: the layer
contract sees only imports between packages, not a cycle inside one (a client and its stream
assembler importing each other, a widget and the code it calls)."""

from __future__ import annotations

import grimp

PACKAGE = "ralph_tui"


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative
    so a deep chain of imports cannot overflow the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def imported(module: str) -> list[str]:
        found = graph.find_modules_directly_imported_by(module)
        return sorted(m for m in found if m.startswith(PACKAGE))

    for root in sorted(m for m in graph.modules if m.startswith(PACKAGE)):
        if root in index:
            continue
        work = [(root, iter(imported(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(imported(child))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
    return cycles


def test_no_module_imports_itself_back() -> None:
    cycles = import_cycles(grimp.build_graph(PACKAGE))
    assert cycles == [], f"import cycles inside {PACKAGE}: {cycles}"


def test_the_check_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("ralph_tui.a", "ralph_tui.b", "ralph_tui.c"):
        graph.add_module(name)
    graph.add_import(importer="ralph_tui.a", imported="ralph_tui.b")
    graph.add_import(importer="ralph_tui.b", imported="ralph_tui.a")
    graph.add_import(importer="ralph_tui.b", imported="ralph_tui.c")
    assert import_cycles(graph) == [["ralph_tui.a", "ralph_tui.b"]]
