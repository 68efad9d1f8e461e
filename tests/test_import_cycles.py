"""No import cycles between the portal's modules, imports inside functions included.

The graph is grimp's (the library under import-linter) over the packages of the import
contracts (pyproject.toml's [tool.importlinter] root_packages): an edge A -> B for every import
statement anywhere in A, at module level and inside functions and methods alike. `from pkg
import name` is an edge to `pkg.name` when that is a module, to `pkg` otherwise; relative
imports are resolved. Imports under `if TYPE_CHECKING:` are left out: they never run.

Importing `a.b.c` is an edge to `a.b.c` alone, not to the packages `a` and `a.b` whose
`__init__` runs first; a package's `__init__` that imports its own submodules is part of the
package, not a cycle with them (an explicit import of the package back from one of them is an
edge, and counts). Imports by name at run time (INSTALLED_APPS, include() in URLconfs, jobs
deferred by task name) are not edges. The benchmark scripts in bench/ are programs, not modules
of these packages: nothing imports them.

A cycle is a strongly connected component of more than one module. The test names each with
one chain round it and every import inside it (module, line, statement). On the same graph,
tasks modules are leaves: services queue jobs by task name (adrag_site/jobs.py), so nothing
imports a tasks module but Procrastinate, at start-up.
"""

from __future__ import annotations

import textwrap
import tomllib

import grimp
import networkx as nx
import pytest

from tests.support import ROOT


def root_packages() -> list[str]:
    """Return the packages the import contracts cover."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["root_packages"]


def import_graph(packages: list[str]) -> tuple[grimp.ImportGraph, nx.DiGraph]:
    """Return grimp's graph of the packages and its module-to-module edges."""
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=True, cache_dir=None)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return graph, edges


def cycles(edges: nx.DiGraph) -> list[set[str]]:
    """Return the groups of modules that import one another round a cycle."""
    components = nx.strongly_connected_components(edges)
    return sorted((group for group in components if len(group) > 1), key=sorted)


def describe(graph: grimp.ImportGraph, edges: nx.DiGraph, group: set[str]) -> str:
    """Return a cycle's chain of modules and the import lines that make it."""
    chain = [importer for importer, _ in nx.find_cycle(edges.subgraph(group), source=min(group))]
    lines = [" -> ".join([*chain, chain[0]])]
    for importer, imported in sorted(edges.subgraph(group).edges):
        for detail in graph.get_import_details(importer=importer, imported=imported):
            lines.append(f"    {importer}:{detail['line_number']}  {detail['line_contents']}")
    return "\n".join(lines)


def test_the_portal_has_no_import_cycles():
    graph, edges = import_graph(root_packages())
    found = [describe(graph, edges, group) for group in cycles(edges)]
    if found:
        pytest.fail(f"{len(found)} import cycle(s):\n" + "\n".join(found), pytrace=False)


def test_tasks_modules_are_leaves():
    """Services queue jobs by task name (adrag_site/jobs.py); only Procrastinate loads tasks."""
    graph, edges = import_graph(root_packages())
    tasks = {module for module in edges if module.rsplit(".", 1)[-1] == "tasks"}
    importers = {(importer, task) for task in tasks for importer in edges.predecessors(task)}
    assert tasks and not importers


def test_a_cycle_closed_inside_a_function_is_found(tmp_path, monkeypatch):
    package = tmp_path / "cyclic"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cyclic import b\n\nVALUE = 1\n")
    (package / "b.py").write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from cyclic import c


            def late():
                from cyclic.a import VALUE

                return VALUE
            """
        )
    )
    (package / "c.py").write_text("import cyclic.b\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    graph, edges = import_graph(["cyclic"])

    assert [sorted(group) for group in cycles(edges)] == [["cyclic.a", "cyclic.b"]]
    assert "cyclic.b:9" in describe(graph, edges, {"cyclic.a", "cyclic.b"})
